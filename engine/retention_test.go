package engine

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"hearth/engine/clock"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// testCommunity is an engine on a data directory that a test can close and open again, on a
// clock of its own.
type testCommunity struct {
	t     *testing.T
	dir   string
	clock *clock.Manual
	// options, when set, adds to the engine's options at each open.
	options func(*Options)
	db      *store.DB
	e       *Engine
}

// newTestClock is a manual clock at a fixed, recent time.
func newTestClock() *clock.Manual {
	return clock.NewManual(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
}

func openTestCommunity(t *testing.T) *testCommunity {
	t.Helper()
	c := &testCommunity{t: t, dir: t.TempDir(), clock: newTestClock()}
	c.open()
	t.Cleanup(c.close)
	return c
}

func (c *testCommunity) open() {
	c.t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(c.dir, "db"), store.ProfileSmall, log)
	if err != nil {
		c.t.Fatal(err)
	}
	opts := Options{BaseURL: "http://127.0.0.1", Log: log, Clock: c.clock}
	if c.options != nil {
		c.options(&opts)
	}
	e, err := Open(db, opts)
	if err != nil {
		c.t.Fatal(err)
	}
	c.db, c.e = db, e
}

func (c *testCommunity) close() {
	if c.e == nil {
		return
	}
	c.e.Close()
	if err := c.db.Close(); err != nil {
		c.t.Error(err)
	}
	c.e, c.db = nil, nil
}

// restart closes the engine and the database and opens them again, as after a crash between
// two commits: every commit is durable, nothing else survives.
func (c *testCommunity) restart() {
	c.close()
	c.open()
}

func (c *testCommunity) join(sub string) Caller {
	c.t.Helper()
	m, _, err := c.e.Join(context.Background(), JoinInput{
		Login:      Login{Issuer: "http://127.0.0.1", Subject: sub},
		ClientAddr: sub,
		Req:        &svcv1.JoinRequest{},
	})
	if err != nil {
		c.t.Fatal(err)
	}
	return Caller{ID: m.GetId()}
}

func (c *testCommunity) send(by Caller, channelID, text, root string) *svcv1.Message {
	c.t.Helper()
	c.clock.Advance(time.Second) // stays clear of the send rate limit
	res, err := c.e.SendMessage(context.Background(), by, &svcv1.SendMessageRequest{ChannelId: channelID, Text: text, ThreadRootId: root})
	if err != nil {
		c.t.Fatal(err)
	}
	return res.GetMessage()
}

// check fails the test on any dangling message row and returns how many messages are stored.
func (c *testCommunity) check() store.MessageCheck {
	c.t.Helper()
	got, err := c.e.CheckMessages()
	if err != nil {
		c.t.Fatal(err)
	}
	for _, p := range got.Problems {
		c.t.Error(p)
	}
	return got
}

// TestPurgeResumesAfterARestart stops the purge after one small batch that cut a thread in two
// (some replies gone, the root and the rest still there), restarts, and checks the store is
// whole at every step: no index row without its message, no message without its index rows, no
// reply without its root. The purge then finishes what it started.
func TestPurgeResumesAfterARestart(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner := c.join("owner")
	ch, err := c.e.CreateChannel(ctx, owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	chID := ch.GetChannel().GetId()
	root := c.send(owner, chID, "old root", "")
	for range 5 {
		c.send(owner, chID, "old reply", root.GetId())
	}
	c.send(owner, chID, "old alone", "")
	c.clock.Advance(36 * time.Hour)
	// A reply written after the cutoff still goes with its old root.
	late := c.send(owner, chID, "late reply", root.GetId())
	fresh := c.send(owner, chID, "fresh", "")
	c.clock.Advance(12 * time.Hour)
	if got := c.check(); got.Messages != 9 || got.Replies != 6 {
		t.Fatalf("before the purge: %d messages, %d replies; want 9 and 6", got.Messages, got.Replies)
	}
	days := int32(1)
	if _, err := c.e.UpdateServerSettings(ctx, owner, &svcv1.UpdateServerSettingsRequest{RetentionDays: &days}); err != nil {
		t.Fatal(err)
	}
	// The jobs loop's first purge is a minute away: the test runs the batches itself.
	more, err := c.e.purgeStep(chID, 4)
	if err != nil || !more {
		t.Fatalf("first batch: more %v, err %v", more, err)
	}
	if got := c.check(); got.Messages != 5 || got.Replies != 2 {
		t.Fatalf("after a batch of 4: %d messages, %d replies; want the root with 2 replies, the old message and the fresh one", got.Messages, got.Replies)
	}

	c.restart()
	if got := c.check(); got.Messages != 5 || got.Replies != 2 {
		t.Fatalf("after the restart: %d messages, %d replies; want 5 and 2", got.Messages, got.Replies)
	}
	// What is left of the old thread is hidden all the same.
	res, err := c.e.ListMessages(ctx, owner, &svcv1.ListMessagesRequest{ChannelId: chID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.GetMessages()) != 1 || res.GetMessages()[0].GetId() != fresh.GetId() || res.GetHasMore() {
		t.Fatalf("ListMessages mid-purge = %v, want only the fresh message", res.GetMessages())
	}
	if _, err := c.e.React(ctx, owner, &svcv1.ReactRequest{MessageId: late.GetId(), Emoji: "👍"}); CodeOf(err) != CodeNotFound {
		t.Fatalf("reacting to a reply of a root past retention: %v, want not_found", err)
	}

	if err := c.e.PurgeNow(); err != nil {
		t.Fatal(err)
	}
	if got := c.check(); got.Messages != 1 || got.Replies != 0 {
		t.Fatalf("after the purge: %d messages, %d replies; want only the fresh message", got.Messages, got.Replies)
	}
}

// TestLogPrunedToRetentionKeepsTheSeq: the event log lets go of everything older than
// retention but its newest event, which keeps the seq across a restart; the message copy in
// that event is emptied.
func TestLogPrunedToRetentionKeepsTheSeq(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner := c.join("owner")
	days := int32(1)
	if _, err := c.e.UpdateServerSettings(ctx, owner, &svcv1.UpdateServerSettingsRequest{RetentionDays: &days}); err != nil {
		t.Fatal(err)
	}
	ch, err := c.e.CreateChannel(ctx, owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	last := c.send(owner, ch.GetChannel().GetId(), "the last word", "")
	seq := c.e.Seq()
	if last.GetCreatedSeq() != seq {
		t.Fatalf("the message is event %d, the newest is %d", last.GetCreatedSeq(), seq)
	}
	c.clock.Advance(48 * time.Hour)
	if err := c.e.PruneLog(); err != nil {
		t.Fatal(err)
	}
	var kept []*storepb.LoggedEvent
	err = c.db.View(func(r *store.Reader) error {
		return r.Events(0, 1<<62, func(le *storepb.LoggedEvent) (bool, error) {
			kept = append(kept, le)
			return true, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].GetEvent().GetSeq() != seq {
		t.Fatalf("the log keeps %d events, want only the newest (%d)", len(kept), seq)
	}
	if m := kept[0].GetEvent().GetMessageCreated(); m.GetId() != last.GetId() || m.GetText() != "" {
		t.Fatalf("the newest event past retention still carries %v", m)
	}
	c.restart()
	if c.e.Seq() != seq {
		t.Fatalf("seq after the restart = %d, want %d", c.e.Seq(), seq)
	}
	if _, err := c.e.UpdateServerSettings(ctx, owner, &svcv1.UpdateServerSettingsRequest{RetentionDays: &days}); err != nil || c.e.Seq() != seq+1 {
		t.Fatalf("the next event: seq %d (%v), want %d", c.e.Seq(), err, seq+1)
	}
}
