package web_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/webtest"
)

// BenchmarkFanOutHTTP measures one message delivered over HTTP to 200 Subscribe streams, each
// a member's own on its own connection, with Connect clients as they come (which accept
// gzip): an op ends when every stream has read the message. It is the server's cost per
// delivery that the load tool sees, without the tool's own share of the CPU; over h2c and over
// HTTP/1.1 (as behind a proxy).
func BenchmarkFanOutHTTP(b *testing.B) {
	h1 := func() *http.Client {
		return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000}}
	}
	for _, tr := range []struct {
		name   string
		client func() *http.Client
	}{{"h2c", webtest.HTTPClient}, {"http1", h1}} {
		b.Run(tr.name, func(b *testing.B) { benchmarkFanOut(b, tr.client) })
	}
}

func benchmarkFanOut(b *testing.B, client func() *http.Client) {
	const streams = 200
	clock := webtest.NewClock()
	s := webtest.Start(b, webtest.WithClock(clock))
	owner := s.Join("owner")
	ch, err := owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		b.Fatal(err)
	}
	// One member per stream: a member may have 16 streams open at once. Joins are 10 a minute
	// from one address: the test's clock lets a minute pass between each ten.
	members := make([]*webtest.Client, streams)
	for i := range members {
		if i%10 == 9 {
			clock.Advance(time.Minute)
		}
		members[i] = s.Join(fmt.Sprintf("member%d", i))
	}
	after := s.Engine.Seq()
	subs := make([]*webtest.Stream, streams)
	for i, m := range members {
		c := &webtest.Client{Token: m.Token, Chat: svcv1connect.NewChatServiceClient(client(), s.URL, connect.WithInterceptors(auth.WithBearer(m.Token)))}
		subs[i] = c.Subscribe(b, after)
	}
	isMessage := func(ev *svcv1.Event) bool { return ev.GetMessageCreated() != nil }
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		clock.Advance(time.Second)
		if _, err := owner.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.Msg.GetChannel().GetId(), Text: "hello to everyone in here"})); err != nil {
			b.Fatal(err)
		}
		for _, st := range subs {
			st.Until(isMessage)
		}
	}
	b.ReportMetric(float64(b.N*streams)/b.Elapsed().Seconds(), "deliveries/s")
}
