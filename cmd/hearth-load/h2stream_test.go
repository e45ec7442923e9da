package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"golang.org/x/net/http2"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The tool's own stream reader gets what the Connect client would: every event in order,
// through a window smaller than the events (so it must give the server more as it reads),
// and the end of the stream with the server's code.
func TestH2StreamReadsEventsAndTheServersEnd(t *testing.T) {
	s := webtest.Start(t)
	alice := s.Join("alice")
	ctx := context.Background()
	ch, err := alice.Chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "load", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	state, err := alice.Chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := dialSubscribe(dctx, s.URL, nil, nil, alice.Token, &svcv1.SubscribeRequest{AfterSeq: state.Msg.GetSeq()}, 65535)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	go func() {
		<-dctx.Done()
		st.Close()
	}()

	// 12 messages of 7,000 characters: more than the window holds.
	var texts []string
	for i := range 12 {
		text := strings.Repeat(string(rune('a'+i%26)), 7000)
		texts = append(texts, text)
		msg := &svcv1.SendMessageRequest{ChannelId: ch.Msg.GetChannel().GetId(), Text: text, ClientId: string(rune('A' + i))}
		_, err := alice.Chat.SendMessage(ctx, connect.NewRequest(msg))
		if connect.CodeOf(err) == connect.CodeResourceExhausted {
			// A person sends 5 messages a second: the same message again, once the limit allows.
			time.Sleep(time.Second)
			_, err = alice.Chat.SendMessage(ctx, connect.NewRequest(msg))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var ev eventFacts
	var got []string
	lastSeq := state.Msg.GetSeq()
	for len(got) < len(texts) {
		if err := st.Next(&ev); err != nil {
			t.Fatalf("after %d messages: %v", len(got), err)
		}
		if seq := ev.seq; seq > 0 {
			if seq <= lastSeq {
				t.Fatalf("seq %d after %d", seq, lastSeq)
			}
			lastSeq = seq
		}
		if ev.created {
			got = append(got, string(ev.text))
		}
	}
	for i := range texts {
		if got[i] != texts[i] {
			t.Fatalf("message %d: %d characters of %q, want %q", i, len(got[i]), got[i][:1], texts[i][:1])
		}
	}

	// A member's 17th stream ends their oldest: this one, with resource_exhausted.
	for range 16 {
		alice.Subscribe(t, lastSeq)
	}
	for {
		err := st.Next(&ev)
		if err == nil {
			continue
		}
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || !strings.Contains(ce.Message(), "too many open streams") {
			t.Fatalf("the stream ended with %v, want resource_exhausted: too many open streams", err)
		}
		break
	}
}

// A token the server refuses ends the stream before any event, with unauthenticated.
func TestH2StreamWithARefusedToken(t *testing.T) {
	s := webtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := dialSubscribe(ctx, s.URL, nil, nil, "not-a-token", &svcv1.SubscribeRequest{}, h2Window)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Next(&eventFacts{})
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("got %v, want unauthenticated", err)
	}
}

// The tool's reader takes an event off its connection without allocating: what it left behind
// per event set the tool's collector going during a run, on the cores the server has, and the
// collection's pauses were counted in the server's delivery latency.
func TestH2StreamReadsAnEventWithoutAllocating(t *testing.T) {
	msg := aRunsMessage(t)
	const runs = 200
	var in bytes.Buffer
	out := http2.NewFramer(&in, nil)
	envelope := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	for range runs + 2 { // AllocsPerRun's warm-up, and one before it
		if err := out.WriteData(1, false, append(envelope, msg...)); err != nil {
			t.Fatal(err)
		}
	}
	// A window larger than what is read: the reader writes nothing back.
	s := &h2Stream{window: 1 << 30, status: "200"}
	s.startFramer(nil, &in)
	var ev eventFacts
	next := func() {
		if err := s.Next(&ev); err != nil {
			t.Fatal(err)
		}
		if k, _, ok := parseText(ev.text, "r1"); !ev.created || !ok || k != 42 {
			t.Fatalf("read %+v, want message 42 of run r1", ev)
		}
	}
	next() // the body's buffer grows to an event's size once
	if allocs := testing.AllocsPerRun(runs, next); allocs != 0 {
		t.Fatalf("%.1f allocations an event, want none", allocs)
	}
}
