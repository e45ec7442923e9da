package web

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func frame(flags byte, data string) []byte {
	b := []byte{flags, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(len(data)))
	return append(b, data...)
}

func gzipped(t *testing.T, s string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestStreamEndReadsTheLastFrame: the end of a gRPC-Web or Connect stream is found whatever
// the writes' boundaries (the whole body at once, or a byte at a time), after messages and
// empty frames, compressed or not; an end too long to keep or without a status is unknown.
func TestStreamEndReadsTheLastFrame(t *testing.T) {
	msgs := append(frame(0, "\x0a\x03abc"), frame(0, "")...)
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		code, msg         string
	}{
		{"grpc-web ok", "application/grpc-web+proto", append(msgs, frame(0x80, "grpc-message: \r\ngrpc-status: 0\r\n")...), "ok", ""},
		{"grpc-web failed", "application/grpc-web+proto", append(msgs, frame(0x80, "grpc-message: message size 70000 is larger%20than 65536\r\ngrpc-status: 8\r\n")...), "resource_exhausted", "message size 70000 is larger than 65536"},
		{"grpc-web compressed", "application/grpc-web", append(msgs, frame(0x81, gzipped(t, "Grpc-Status: 5\r\nGrpc-Message: gone\r\n"))...), "not_found", "gone"},
		{"grpc-web without a status", "application/grpc-web", frame(0x80, "x: y\r\n"), "unknown", "the stream's end could not be read"},
		{"connect ok", "application/connect+proto", append(msgs, frame(0x02, "{}")...), "ok", ""},
		{"connect failed", "application/connect+json", append(msgs, frame(0x02, `{"error":{"code":"not_found","message":"no such symbol"}}`)...), "not_found", "no such symbol"},
		{"connect compressed", "application/connect+proto", frame(0x03, gzipped(t, `{"error":{"code":"internal","message":"x"}}`)), "internal", "x"},
		{"an end over the limit", "application/connect+proto", frame(0x02, `{"error":{"code":"internal","message":"`+strings.Repeat("x", maxLoggedEnd)+`"}}`), "unknown", "the stream's end could not be read"},
	} {
		for _, step := range []int{len(tc.body), 1, 4, 6} {
			s := newStreamEnd(tc.contentType)
			for b := tc.body; len(b) > 0; b = b[min(step, len(b)):] {
				s.see(b[:min(step, len(b))])
			}
			if !s.seen {
				t.Errorf("%s, writes of %d: no end seen", tc.name, step)
				continue
			}
			if code, msg := s.outcome(); code != tc.code || msg != tc.msg {
				t.Errorf("%s, writes of %d: %q %q, want %q %q", tc.name, step, code, msg, tc.code, tc.msg)
			}
		}
	}
	if s := newStreamEnd("application/connect+proto"); func() bool { s.see(frame(0, "abc")); return s.seen }() {
		t.Error("a message frame taken for the end")
	}
	for _, ct := range []string{"application/grpc", "application/grpc+proto", "application/json", "application/proto"} {
		if newStreamEnd(ct) != nil {
			t.Errorf("%s: followed, but its outcome is not in its body", ct)
		}
	}
}

// TestToolStreamEndIsReadAfterAnExplicitWriteHeader: the stream's end is followed whether the
// handler writes its header itself first or lets its first write do it.
func TestToolStreamEndIsReadAfterAnExplicitWriteHeader(t *testing.T) {
	for _, explicit := range []bool{false, true} {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		h := logRequests(log, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/grpc-web+proto")
			if explicit {
				w.WriteHeader(http.StatusOK)
			}
			w.Write(frame(0, "\x0a\x03abc"))
			w.Write(frame(0x80, "grpc-status: 13\r\ngrpc-message: it broke\r\n"))
		}))
		r := httptest.NewRequest(http.MethodPost, "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", nil)
		h.ServeHTTP(httptest.NewRecorder(), r)
		if line := buf.String(); !strings.Contains(line, `level=INFO msg="request failed"`) || !strings.Contains(line, "code=internal") || !strings.Contains(line, `error="it broke"`) {
			t.Errorf("WriteHeader first: %v; the line: %s", explicit, line)
		}
	}
}
