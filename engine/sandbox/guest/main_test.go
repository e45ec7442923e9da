package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"hearth/engine/sandbox/internal/wire"
)

// The protocol, run natively; the sandbox's tests run the same code as wasm.
func TestRun(t *testing.T) {
	tests := []struct {
		name, in string
		want     wire.Response
	}{
		{"inspect", "inspect\nGIF89a\x03\x00\x09\x00\x00\x00\x00", wire.Response{Inspect: &wire.Inspect{ContentType: "image/gif", Width: 3, Height: 9}}},
		{"empty payload", "inspect\n", wire.Response{Inspect: &wire.Inspect{ContentType: "text/plain; charset=utf-8"}}},
		{"preview", "preview\nhttps://example.com/a/\ntext/html\n<title>T</title><meta property=og:image content=i.png>", wire.Response{Preview: &wire.Preview{Title: "T", Image: "https://example.com/a/i.png"}}},
		{"preview without its header lines", "preview\n<title>T</title>", wire.Response{Error: "page has no URL line"}},
		{"decode", "decode\n512 1000\nGIF89a\x03\x00\x09\x00\x00\x00\x00", wire.Response{Decode: &wire.Decode{ContentType: "image/gif", Problem: "its GIF has no frames"}}},
		{"decode without its limits line", "decode\nGIF89a", wire.Response{Error: "image has no limits line"}},
		{"decode with limits that are not", "decode\n512 -1\nGIF89a", wire.Response{Error: "image limits line \"512 -1\" is not two positive numbers"}},
		{"unknown operation", "html\n<html>", wire.Response{Error: "unknown operation html"}},
		{"no operation line", "inspect", wire.Response{Error: "request has no operation line"}},
		{"operation line too long", strings.Repeat("x", 100) + "\n", wire.Response{Error: "request has no operation line"}},
		{"payload too large", "inspect\n" + strings.Repeat("x", wire.MaxPayload+1), wire.Response{Error: "payload is over 1048576 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := run(strings.NewReader(tt.in), &out); code != 0 {
				t.Fatalf("exit status %d", code)
			}
			var got wire.Response
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tt.want)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("got %s, want %s", gotJSON, wantJSON)
			}
		})
	}
}
