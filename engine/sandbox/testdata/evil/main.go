// Command evil is a misbehaving guest for the sandbox's tests, built into ../evil.wasm by
// go generate. It reads a request like the real guest, then does what the payload names,
// so one small module stands in for every way a guest broken by a hostile file could fail.
package main

import (
	"io"
	"os"
	"strings"
)

// say writes one line to stdout; fmt would double the module's size.
func say(s string) { os.Stdout.WriteString(s + "\n") }

// sink keeps allocations reachable so the compiler cannot drop them.
var sink [][]byte

func main() {
	req, _ := io.ReadAll(os.Stdin)
	_, payload, _ := strings.Cut(string(req), "\n")
	switch payload {
	case "ok":
		say(`{"inspect":{"content_type":"text/plain; charset=utf-8","width":3,"height":2}}`)
	case "loop":
		for {
		}
	case "alloc":
		for {
			sink = append(sink, make([]byte, 1<<20))
		}
	case "panic":
		panic("evil guest panics")
	case "exit":
		os.Exit(3)
	case "spew":
		for {
			os.Stdout.WriteString(`{"inspect":{"content_type":"text/plain"}}`)
		}
	case "spew-stderr":
		for {
			os.Stderr.WriteString("noise\n")
		}
	case "garbage":
		say("this is not JSON")
	case "two":
		say(`{"inspect":{"content_type":"text/plain"}}{"inspect":{"content_type":"text/plain"}}`)
	case "header":
		say(`{"inspect":{"content_type":"text/html\r\nSet-Cookie: a=b"}}`)
	case "negative":
		say(`{"inspect":{"content_type":"image/png","width":-1,"height":5}}`)
	case "unknown-field":
		say(`{"inspect":{"content_type":"image/png"},"extra":1}`)
	case "error":
		say(`{"error":"the guest refuses"}`)
	case "empty":
	default:
		say(`{"error":"unknown evil"}`)
	}
}
