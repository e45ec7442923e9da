package main

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
)

// The facts read from an encoding are the facts of the decoded event, for every kind the
// tool looks at and for kinds it skips.
func TestEventFactsFromTheEncoding(t *testing.T) {
	events := []*svcv1.Event{
		{Seq: 7, AtMs: 1, Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Id: "m1", ChannelId: "c1", Text: "hl r1 3 1700000000000000000 xxxx", AuthorId: "a"}}},
		{Seq: 8, Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Id: "m2"}}},
		{AtMs: 2, Kind: &svcv1.Event_Resync{Resync: true}},
		{AtMs: 3, Kind: &svcv1.Event_Heartbeat{Heartbeat: true}},
		{Seq: 9, Kind: &svcv1.Event_MessageDeleted{MessageDeleted: &svcv1.Message{Id: "m1", Text: "not created"}}},
		{Seq: 1 << 40},
		{},
	}
	for _, ev := range events {
		b, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var got eventFacts
		if err := got.decode(b); err != nil {
			t.Fatalf("%v: %v", ev, err)
		}
		want := factsOf(ev)
		if got.seq != want.seq || got.resync != want.resync || got.created != want.created || string(got.text) != string(want.text) {
			t.Errorf("%v: got %+v, want %+v", ev, got, want)
		}
	}
}

// As protobuf decodes it: the kind is the oneof's last field, and message_created's
// occurrences merge (the last text wins).
func TestEventFactsFollowProtobufsRules(t *testing.T) {
	enc := func(ev *svcv1.Event) []byte {
		b, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	created := func(text string) []byte {
		return enc(&svcv1.Event{Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Text: text}}})
	}
	resync := enc(&svcv1.Event{Kind: &svcv1.Event_Resync{Resync: true}})
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"created then resync", append(created("a"), resync...)},
		{"resync then created", append(append([]byte{}, resync...), created("b")...)},
		{"created twice", append(created("a"), created("b")...)},
		{"created then one without text", append(created("a"), enc(&svcv1.Event{Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Id: "x"}}})...)},
	} {
		var ev svcv1.Event
		if err := proto.Unmarshal(c.b, &ev); err != nil {
			t.Fatal(err)
		}
		var got eventFacts
		if err := got.decode(c.b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := factsOf(&ev)
		if got.resync != want.resync || got.created != want.created || string(got.text) != string(want.text) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, want)
		}
	}
}

// An encoding cut short or with a broken tag is an error, not facts.
func TestEventFactsOfABrokenEncoding(t *testing.T) {
	b, err := proto.Marshal(&svcv1.Event{Seq: 3, Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Text: strings.Repeat("x", 300)}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{b[:len(b)-1], b[:3], {0xff}, {0x08, 0xff}} {
		var f eventFacts
		if err := f.decode(bad); err == nil {
			t.Errorf("% x decoded as %+v", bad, f)
		}
	}
}

// aRunsMessage is the encoding of an event as a run's message arrives: message 42 of run r1.
func aRunsMessage(tb testing.TB) []byte {
	msg, err := proto.Marshal(&svcv1.Event{Seq: 123456, AtMs: 1700000000000, Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{
		Id: "01JABCDEFGHJKMNPQRSTVWXYZ0", ChannelId: "01JABCDEFGHJKMNPQRSTVWXYZ1", AuthorId: "01JABCDEFGHJKMNPQRSTVWXYZ2",
		Text: messageText("r1", 42, time.Unix(1700000000, 0), 64), CreatedAtMs: 1700000000000,
	}}})
	if err != nil {
		tb.Fatal(err)
	}
	return msg
}

// BenchmarkEventFacts is the tool's work per event it receives, beside decoding the whole
// event.
func BenchmarkEventFacts(b *testing.B) {
	msg := aRunsMessage(b)
	b.Run("facts", func(b *testing.B) {
		b.ReportAllocs()
		var f eventFacts
		for b.Loop() {
			if err := f.decode(msg); err != nil {
				b.Fatal(err)
			}
			if _, _, ok := parseText(f.text, "r1"); !ok {
				b.Fatal("not the run's")
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		var ev svcv1.Event
		for b.Loop() {
			if err := proto.Unmarshal(msg, &ev); err != nil {
				b.Fatal(err)
			}
			if _, _, ok := parseText([]byte(ev.GetMessageCreated().GetText()), "r1"); !ok {
				b.Fatal("not the run's")
			}
		}
	})
}
