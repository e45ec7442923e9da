// Package wire is the protocol between the sandbox host and its guest: one request on the
// guest's stdin, one JSON response on its stdout, then the guest exits.
//
// A request is the operation's name, a newline, then the operation's payload up to the end
// of stdin. The name comes first so that new operations (the HTML head parsing of link
// previews was the second) need no change to the framing, and a guest that does not know an
// operation says so in its response instead of misreading the payload.
package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Operations the guest performs.
const (
	// OpInspect sniffs a file head's content type and reads image dimensions.
	OpInspect = "inspect"
	// OpPreview reads a link preview (title, description, site name, image URL) from an
	// HTML page; its payload is EncodePage's.
	OpPreview = "preview"
	// OpDecode decodes a whole PNG, GIF or WebP image, every frame of an animation, within
	// limits; its payload is EncodeImage's. A header over damaged or missing data passes
	// OpInspect but not this.
	OpDecode = "decode"
)

// MaxPayload is the largest payload the guest accepts. The host passes less (see the
// sandbox's HeadSize); the guest enforces it too so that its memory use is bounded by its
// own code, not by what the host happens to send.
const MaxPayload = 1 << 20

// maxOp bounds the operation name, so that a request without a newline is rejected after a
// few bytes instead of being read whole as a name.
const maxOp = 32

// EncodeRequest returns the bytes of a request for op with payload.
func EncodeRequest(op string, payload []byte) []byte {
	b := make([]byte, 0, len(op)+1+len(payload))
	b = append(b, op...)
	b = append(b, '\n')
	return append(b, payload...)
}

// ReadRequest reads one request from r.
func ReadRequest(r io.Reader) (op string, payload []byte, err error) {
	br := bufio.NewReader(io.LimitReader(r, maxOp+1+MaxPayload+1))
	name, err := br.ReadSlice('\n')
	if err != nil || len(name) > maxOp+1 {
		return "", nil, errors.New("request has no operation line")
	}
	// ReadSlice's result is only valid until the next read.
	op = string(bytes.TrimSuffix(name, []byte("\n")))
	payload, err = io.ReadAll(br)
	if err != nil {
		return "", nil, fmt.Errorf("reading the payload: %w", err)
	}
	if len(payload) > MaxPayload {
		return "", nil, fmt.Errorf("payload is over %d bytes", MaxPayload)
	}
	return op, payload, nil
}

// Response is the guest's one answer. Exactly one field is set: Error when the request
// could not be served, otherwise the field named after the operation.
type Response struct {
	Error   string   `json:"error,omitempty"`
	Inspect *Inspect `json:"inspect,omitempty"`
	Preview *Preview `json:"preview,omitempty"`
	Decode  *Decode  `json:"decode,omitempty"`
}

// Inspect is the answer to OpInspect. Width and Height are zero when the head is not an
// image of a known format or its header could not be read.
type Inspect struct {
	ContentType string `json:"content_type"`
	Width       int32  `json:"width,omitempty"`
	Height      int32  `json:"height,omitempty"`
}
