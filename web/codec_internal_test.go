package web

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// TestEnvelopedIsWhatConnectSends: for every content type a stream may come in, the bytes the
// deliverers write for an event (streamCodec, enveloped) are those Connect's own Send writes
// for it, up to Connect's compression threshold, with gzip accepted; from the threshold on,
// Connect compresses, and the deliverers leave such events to it.
func TestEnvelopedIsWhatConnectSends(t *testing.T) {
	// event has a proto encoding of exactly n bytes.
	binary := codec{name: "proto"}
	event := func(n int) *svcv1.Event {
		for pad := n; pad >= 0; pad-- {
			ev := &svcv1.Event{Seq: 7, Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Text: strings.Repeat("x", pad)}}}
			if b, _ := binary.MarshalAppend(nil, ev); len(b) == n {
				return ev
			}
		}
		t.Fatalf("no event of %d bytes", n)
		return nil
	}
	small, below, at := event(40), event(compressMinBytes-1), event(compressMinBytes)
	for _, ct := range []string{
		"application/connect+proto", "application/connect+json", "application/connect+json; charset=utf-8",
		"application/grpc", "application/grpc+proto", "application/grpc+json",
		"application/grpc-web", "application/grpc-web+proto", "application/grpc-web+json",
	} {
		live, ok := streamCodec(ct, nil)
		if !ok {
			t.Fatalf("%s: no codec", ct)
		}
		for _, ev := range []*svcv1.Event{small, below, at} {
			sent := connectSends(t, ct, &engine.Frame{Event: ev})
			ours, err := live.enveloped(&engine.Frame{Event: ev})
			if err != nil {
				t.Fatal(err)
			}
			compressed := len(ours)-envelopePrefix >= compressMinBytes
			if !live.json && compressed != (ev == at) {
				t.Fatalf("%s: %d bytes compressed: %v", ct, len(ours)-envelopePrefix, compressed)
			}
			if got := bytes.Equal(sent, ours); got == compressed {
				t.Fatalf("%s, %d bytes: Connect sent %.12x, ours %.12x; same: %v, want %v", ct, len(ours)-envelopePrefix, sent, ours, got, !compressed)
			}
		}
	}
	for _, ct := range []string{"application/connect+thrift", "application/json", "application/grpc-webx", ""} {
		if _, ok := streamCodec(ct, nil); ok {
			t.Fatalf("%q has a codec", ct)
		}
	}
}

// connectSends is what Connect's Send writes on a stream of content type ct for f.
func connectSends(t *testing.T, ct string, f *engine.Frame) []byte {
	t.Helper()
	var sent []byte
	rec := httptest.NewRecorder()
	handler := connect.NewServerStreamHandler("/t.T/S", func(_ context.Context, _ *connect.Request[svcv1.SubscribeRequest], st *connect.ServerStream[svcv1.Event]) error {
		before := rec.Body.Len()
		if err := st.Conn().Send(f); err != nil {
			return err
		}
		sent = bytes.Clone(rec.Body.Bytes()[before:])
		return nil
	}, codecs(nil)...)
	body := make([]byte, envelopePrefix) // an empty request message
	if strings.Contains(ct, "json") {
		body = append(body, "{}"...)
		body[4] = 2
	}
	r := httptest.NewRequest("POST", "/t.T/S", bytes.NewReader(body))
	r.ProtoMajor, r.ProtoMinor = 2, 0
	r.Header.Set("Content-Type", ct)
	for _, h := range []string{"Connect-Accept-Encoding", "Grpc-Accept-Encoding"} {
		r.Header.Set(h, "gzip")
	}
	handler.ServeHTTP(rec, r)
	if len(sent) == 0 {
		t.Fatalf("%s: Connect sent nothing: %d %s", ct, rec.Code, rec.Body.Bytes())
	}
	return sent
}
