package web_test

import (
	"slices"
	"testing"
	"time"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Where replies, pins and search filters (EXTENSIONS.md 1, 2, 5) meet imported history
// (EXTENSIONS.md 9): imported messages take new seqs but keep their original times.

// foundIDs runs a query as c and returns the ids found, sorted (the order is not the point).
func foundIDs(t *testing.T, c *webtest.Client, q string) []string {
	t.Helper()
	got := searchIDs(t, c, &svcv1.SearchRequest{Query: q, Limit: 100})
	slices.Sort(got)
	return got
}

// sortedIDs are the messages' ids, sorted.
func sortedIDs(ms ...*svcv1.Message) []string {
	out := ids(ms...)
	slices.Sort(out)
	return out
}

// importHistory imports a TEXT channel with the messages given, and finishes its import.
func importHistory(t *testing.T, s *webtest.Server, key, name string, msgs []engine.ImportMessage) string {
	t.Helper()
	ch, err := s.Engine.ImportChannel(ctx, engine.ImportChannel{Key: key, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Engine.ImportMessages(ctx, key, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != len(msgs) {
		t.Fatalf("import: %+v, want %d added", res, len(msgs))
	}
	if err := s.Engine.FinishImport(ctx, key); err != nil {
		t.Fatal(err)
	}
	return ch.ID
}

// messageByText finds a channel's message by its text, as c lists it.
func messageByText(t *testing.T, c *webtest.Client, channelID, text string) *svcv1.Message {
	t.Helper()
	for _, m := range listedMessages(t, c, channelID) {
		if m.GetText() == text {
			return m
		}
	}
	t.Fatalf("no message %q in channel %s", text, channelID)
	return nil
}

// TestDateFiltersFindImportedHistory: before: and after: find every message of their days when
// an import wrote older messages after newer ones (new seqs, original times), in the index's
// lists as in its memory, and after a restart.
func TestDateFiltersFindImportedHistory(t *testing.T) {
	t.Parallel()
	c := newCommunity(t) // 2026-11-01 12:00 UTC
	general := c.channel("general")
	nov1 := c.send(c.owner, general.GetId(), "native lunch one")
	c.clock.Advance(48 * time.Hour)
	nov3 := c.send(c.owner, general.GetId(), "native lunch three")

	day := func(s string) int64 {
		d, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return d.UnixMilli()
	}
	owner := c.owner.Member.GetId()
	old := importHistory(t, c.s, "test/channel/old", "old", []engine.ImportMessage{
		{Key: "test/message/1", AuthorID: owner, Text: "imported lunch october", CreatedAtMs: day("2026-10-01 09:00")},
		{Key: "test/message/2", AuthorID: owner, Text: "imported lunch november", CreatedAtMs: day("2026-11-02 09:00")},
	})
	oct1 := messageByText(t, c.owner, old, "imported lunch october")
	nov2 := messageByText(t, c.owner, old, "imported lunch november")

	queries := []struct {
		q    string
		want []*svcv1.Message
	}{
		{"after:2026-09-30", []*svcv1.Message{oct1, nov1, nov2, nov3}},
		{"after:2026-10-31", []*svcv1.Message{nov1, nov2, nov3}},
		{"after:2026-11-01", []*svcv1.Message{nov2, nov3}},
		{"before:2026-11-02", []*svcv1.Message{oct1, nov1}},
		{"before:2026-11-03", []*svcv1.Message{oct1, nov1, nov2}},
		{"before:2026-11-04", []*svcv1.Message{oct1, nov1, nov2, nov3}},
		{"after:2026-10-31 before:2026-11-03", []*svcv1.Message{nov1, nov2}},
		{"lunch after:2026-09-30 before:2026-11-02", []*svcv1.Message{oct1, nov1}},
		{"in:general before:2026-11-02", []*svcv1.Message{nov1}},
		{"in:old after:2026-10-31", []*svcv1.Message{nov2}},
	}
	run := func(when string) {
		t.Helper()
		for _, q := range queries {
			if got := foundIDs(t, c.owner, q.q); !slices.Equal(got, sortedIDs(q.want...)) {
				t.Errorf("%s: %q: %v, want %v", when, q.q, got, sortedIDs(q.want...))
			}
		}
	}
	run("from the index's memory")
	if _, err := c.s.Engine.SearchIndexTerms(); err != nil { // applies what waits
		t.Fatal(err)
	}
	run("from the lists")
	c.s.Restart()
	member := c.owner.Member
	*c.owner = *c.s.Client(c.owner.Token)
	c.owner.Member = member
	run("after a restart")
}
