package web

import (
	"fmt"
	"io"

	"connectrpc.com/connect"
	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// codec replaces Connect's protobuf and JSON codecs (same options, same bytes) so that an event
// sent to many streams is encoded once per format: Subscribe sends *engine.Frame values, and
// every stream that receives the same event shares the Frame and its cached encodings.
//
// It is also where file URLs are signed: every response and event passes through present
// (engine.SignURLs) as it is encoded, so whatever reaches a client carries fresh signed URLs,
// replayed events included, and a shared Frame is signed once, not once per stream.
type codec struct {
	name    string
	json    bool
	present func(proto.Message) proto.Message
}

// compressMinBytes: smaller messages go uncompressed. Gzip cost a fixed ~10 µs per message (the
// standard library's, measured then: each use clears over 512 KiB of tables), which for a stream
// event, compressed once per stream, was most of the server's work in fan-out and saves a few
// hundred bytes at most.
const compressMinBytes = 1024

// gzipCompression makes Connect's gzip github.com/klauspost/compress's, at its default level, in
// place of the standard library's: the same format, output within 3% of the size, in 45 against
// 115 µs for a page of 100 messages in JSON (25 KB to 1.8 KB). Responses that large (GetState,
// history pages) were compressed at 5% of the web tests' CPU.
func gzipCompression() connect.HandlerOption {
	return connect.WithCompression("gzip",
		func() connect.Decompressor { return &gzip.Reader{} },
		func() connect.Compressor { return gzip.NewWriter(io.Discard) })
}

func codecs(present func(proto.Message) proto.Message) []connect.HandlerOption {
	return []connect.HandlerOption{
		gzipCompression(),
		connect.WithCompressMinBytes(compressMinBytes),
		connect.WithCodec(codec{name: "proto", present: present}),
		connect.WithCodec(codec{name: "json", json: true, present: present}),
		connect.WithCodec(codec{name: "json; charset=utf-8", json: true, present: present}),
	}
}

func (c codec) Name() string { return c.name }

// format is the Frame cache key: both JSON names produce the same bytes.
func (c codec) format() string {
	if c.json {
		return "json"
	}
	return "proto"
}

func (c codec) Marshal(m any) ([]byte, error) { return c.MarshalAppend(nil, m) }

func (c codec) MarshalAppend(dst []byte, m any) ([]byte, error) {
	if f, ok := m.(*engine.Frame); ok {
		b, err := f.Encoded(c.format(), c.marshalEvent)
		if err != nil {
			return nil, err
		}
		return append(dst, b...), nil
	}
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a proto.Message", m)
	}
	if c.present != nil {
		pm = c.present(pm)
	}
	if c.json {
		return protojson.MarshalOptions{}.MarshalAppend(dst, pm)
	}
	return proto.MarshalOptions{}.MarshalAppend(dst, pm)
}

// marshalEvent encodes an event for its Frame, where every stream that sends it finds it.
func (c codec) marshalEvent(ev *svcv1.Event) ([]byte, error) { return c.MarshalAppend(nil, ev) }

func (c codec) Unmarshal(b []byte, m any) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return fmt.Errorf("%T is not a proto.Message", m)
	}
	if c.json {
		if len(b) == 0 {
			// An empty JSON body is an empty message, as in Connect's own codec.
			return nil
		}
		return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(b, pm)
	}
	return proto.Unmarshal(b, pm)
}

// IsBinary tells Connect whether the bytes need base64 in GET requests.
func (c codec) IsBinary() bool { return !c.json }
