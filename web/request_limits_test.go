package web_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// A request over 1 MiB is refused before it is decoded, and so is one that only grows to that
// size when decompressed: Connect reads the body before authentication runs, so without the
// bound anyone could make the server hold any amount of memory.
func TestRequestsAreBounded(t *testing.T) {
	s := webtest.Start(t)
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	_, err := alice.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: strings.Repeat("a", 2<<20)}))
	wantCode(t, "a 2 MiB message", err, connect.CodeResourceExhausted, "1048576")

	// 64 MiB of zeros gzip to ~64 KiB; sent without logging in.
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	zeros := make([]byte, 1<<20)
	for range 64 {
		zw.Write(zeros)
	}
	zw.Close()
	r, err := http.NewRequest("POST", s.URL+"/svc.v1.ChatService/GetState", &body)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/proto")
	r.Header.Set("Content-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := http.StatusTooManyRequests; resp.StatusCode != want { // Connect's status for resource_exhausted
		t.Fatalf("a gzip bomb: status %d, want %d", resp.StatusCode, want)
	}
}

// SetTyping's thread_root_id goes to every member of the channel: it must name a thread of it.
func TestTypingThreadRootIsChecked(t *testing.T) {
	s := webtest.Start(t)
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	other := mustChannel(t, alice, "random", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	root := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "root"})
	reply := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "reply", ThreadRootId: root.GetId()})
	for _, tc := range []struct{ what, channel, root string }{
		{"an unknown root", ch.GetId(), "nope"},
		{"a reply as root", ch.GetId(), reply.GetId()},
		{"a root of another channel", other.GetId(), root.GetId()},
		{"a long id", ch.GetId(), strings.Repeat("x", 10000)},
	} {
		_, err := alice.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: tc.channel, ThreadRootId: tc.root}))
		wantCode(t, tc.what, err, connect.CodeNotFound, "is not a top-level message of this channel")
	}
	_, err := alice.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: ch.GetId(), ThreadRootId: root.GetId()}))
	wantOK(t, "typing in a thread", err)
}
