// Command guest runs inside the sandbox (GOOS=wasip1 GOARCH=wasm): it reads one request on
// stdin, writes one JSON response on stdout and exits. It parses untrusted bytes so that
// the server does not have to; see package hearth/engine/sandbox for the host side and
// package wire for the protocol.
//
// It also builds for the host OS, so that go vet and the tests cover it, but it is only
// ever run by the sandbox.
package main

import (
	"encoding/json"
	"io"
	"os"

	"hearth/engine/sandbox/guest/internal/decode"
	"hearth/engine/sandbox/guest/internal/inspect"
	"hearth/engine/sandbox/guest/internal/preview"
	"hearth/engine/sandbox/internal/wire"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

// run serves one request and returns the exit status: 0 whenever a response was written,
// including one that reports an error, so the host can tell "the guest said no" from "the
// guest broke".
func run(in io.Reader, out io.Writer) int {
	if err := json.NewEncoder(out).Encode(serve(in)); err != nil {
		return 1
	}
	return 0
}

func serve(in io.Reader) wire.Response {
	op, payload, err := wire.ReadRequest(in)
	if err != nil {
		return wire.Response{Error: err.Error()}
	}
	switch op {
	case wire.OpInspect:
		res := inspect.Inspect(payload)
		return wire.Response{Inspect: &res}
	case wire.OpPreview:
		pageURL, contentType, page, err := wire.DecodePage(payload)
		if err != nil {
			return wire.Response{Error: err.Error()}
		}
		res := preview.Extract(pageURL, contentType, page)
		return wire.Response{Preview: &res}
	case wire.OpDecode:
		maxSide, maxPixels, img, err := wire.DecodeImage(payload)
		if err != nil {
			return wire.Response{Error: err.Error()}
		}
		res := decode.Decode(maxSide, maxPixels, img)
		return wire.Response{Decode: &res}
	default:
		return wire.Response{Error: "unknown operation " + op}
	}
}
