package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/webtest"
)

// TestAStreamThatStopsReadingHoldsUpNoOther: a client that stops reading for a moment (its
// HTTP/2 window shuts) leaves its stream's writer waiting, and its events wait in its queue:
// the other streams get every event meanwhile, and once it reads again (within the write
// timeout), it gets every event once, in order.
func TestAStreamThatStopsReadingHoldsUpNoOther(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)

	// Bob's client gives the server 64 KiB of window and no more until it reads.
	tr := &http.Transport{HTTP2: &http.HTTP2Config{MaxReceiveBufferPerConnection: 64 << 10, MaxReceiveBufferPerStream: 64 << 10}}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	chat := svcv1connect.NewChatServiceClient(&http.Client{Transport: tr}, s.URL, connect.WithInterceptors(auth.WithBearer(bob.Token)))
	ctx, cancel := context.WithTimeout(context.Background(), 3*webtest.Wait)
	defer cancel()
	slow, err := chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: s.Engine.Seq()}))
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if !slow.Receive() || !slow.Msg().GetHeartbeat() {
		t.Fatalf("the slow stream opened with %v, %v", slow.Msg(), slow.Err())
	}
	fast := alice.Subscribe(t, s.Engine.Seq())

	// 40 messages of 4,000 characters: more than twice the slow client's window.
	const n = 40
	text := func(i int) string { return fmt.Sprintf("%02d %s", i, strings.Repeat("x", 3997)) }
	for i := range n {
		clock.Advance(200 * time.Millisecond)
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text(i)})
		if ev := fast.Next(); ev.GetMessageCreated().GetText() != text(i) {
			t.Fatalf("the fast stream got %s, want message %d", kind(ev), i)
		}
	}
	for i := 0; i < n; {
		if !slow.Receive() {
			t.Fatalf("the slow stream ended after %d messages: %v", i, slow.Err())
		}
		ev := slow.Msg()
		if ev.GetSeq() == 0 {
			continue
		}
		if got := ev.GetMessageCreated().GetText(); got != text(i) {
			t.Fatalf("the slow stream's event %d is %s %.2q, want message %d", i, kind(ev), got, i)
		}
		i++
	}
}

// TestLiveEventsInEveryProtocolAndCodec: a stream's live events reach a client in each
// protocol and codec it may stream in, over h2c: small ones, and a larger one, which Connect
// sends compressed to these clients (they accept gzip), in between, in order.
func TestLiveEventsInEveryProtocolAndCodec(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	texts := []string{"short", strings.Repeat("long ", 400), "short again"}
	for _, p := range []struct {
		name string
		opts []connect.ClientOption
	}{
		{"connect proto", nil},
		{"connect json", []connect.ClientOption{connect.WithProtoJSON()}},
		{"grpc proto", []connect.ClientOption{connect.WithGRPC()}},
		{"grpc json", []connect.ClientOption{connect.WithGRPC(), connect.WithProtoJSON()}},
		{"grpc-web proto", []connect.ClientOption{connect.WithGRPCWeb()}},
		{"grpc-web json", []connect.ClientOption{connect.WithGRPCWeb(), connect.WithProtoJSON()}},
	} {
		t.Run(p.name, func(t *testing.T) {
			st := s.Client(alice.Token, p.opts...).Subscribe(t, s.Engine.Seq())
			for _, text := range texts {
				clock.Advance(time.Second)
				mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text})
			}
			for _, text := range texts {
				if ev := st.Next(); ev.GetMessageCreated().GetText() != text {
					t.Fatalf("got %.40q, want %.40q", kind(ev), "message_created:"+text)
				}
			}
		})
	}
}
