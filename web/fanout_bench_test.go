package web_test

import (
	"fmt"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// BenchmarkFanOutHTTP measures one message delivered over HTTP to 200 Subscribe streams, each
// a member's own on its own connection, with Connect clients as they come (which accept gzip): an op ends when
// every stream has read the message. It is the server's cost per delivery that the load tool
// sees, without the tool's own share of the CPU.
func BenchmarkFanOutHTTP(b *testing.B) {
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
	for i := range subs {
		subs[i] = members[i].Subscribe(b, after)
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
