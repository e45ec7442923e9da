package engine

import (
	"context"
	"testing"
	"time"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// The digest queue's bookkeeping, on the engine: a message is kept once, the oldest go past the
// limit, nothing is due before the wait, the hour after an email holds the next one back and
// the member's state row goes once that hour is over, a retry waits for its time.
func TestDigestQueueRules(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner, bob := c.join("owner"), c.join("bob")
	ch, err := c.e.CreateChannel(ctx, owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	chID := ch.GetChannel().GetId()
	q := c.e.Digests(DigestPolicy{Wait: 15 * time.Minute, Every: time.Hour, Max: 2})
	note := func(text string) DigestNote {
		m := c.send(owner, chID, "<@"+bob.ID+"> "+text, "")
		return DigestNote{MemberID: bob.ID, ChannelID: chID, MessageID: m.GetId(), Seq: m.GetCreatedSeq(), AtMs: m.GetCreatedAtMs(), Reason: NoticeMention}
	}
	pending := func(want int) {
		t.Helper()
		if n, err := q.Pending(bob.ID); err != nil || n != want {
			t.Fatalf("pending %d, %v; want %d", n, err, want)
		}
	}
	due := func(at time.Time, want int) {
		t.Helper()
		if ids, err := q.Due(at, 10); err != nil || len(ids) != want {
			t.Fatalf("due at %s: %v, %v; want %d", at.Format(time.TimeOnly), ids, err, want)
		}
	}
	one := note("one")
	if err := q.Add([]DigestNote{one, one}); err != nil {
		t.Fatal(err)
	}
	pending(1)
	two := note("two")
	if err := q.Add([]DigestNote{two, note("three")}); err != nil {
		t.Fatal(err)
	}
	pending(2)                     // "one" dropped for the limit
	t0 := time.UnixMilli(two.AtMs) // messages are sent a second apart

	due(t0.Add(14*time.Minute), 0)
	if dg, err := q.Take(bob.ID, t0.Add(14*time.Minute)); dg != nil || err != nil {
		t.Fatalf("taken before the wait: %+v, %v", dg, err)
	}
	at := t0.Add(15*time.Minute + time.Second)
	due(at, 1)
	dg, err := q.Take(bob.ID, at)
	if err != nil || len(dg.Entries) != 2 || dg.Dropped != 1 || dg.Entries[0].Text != "@bob two" || dg.Login.Subject != "bob" {
		t.Fatalf("Take: %+v, %v", dg, err)
	}

	// A try that failed waits for its retry, and keeps everything.
	if err := q.Retry(dg, at.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	pending(2)
	due(at.Add(9*time.Minute), 0)
	at = at.Add(10 * time.Minute)
	if dg, err = q.Take(bob.ID, at); err != nil || dg.Failures != 1 || len(dg.Entries) != 2 {
		t.Fatalf("Take after a retry: %+v, %v", dg, err)
	}
	c.clock.Set(at)
	late := note("late") // kept while the email goes: not taken, stays
	if err := q.Add([]DigestNote{late}); err != nil {
		t.Fatal(err)
	}
	if err := q.Done(dg, at); err != nil {
		t.Fatal(err)
	}
	pending(1)
	// "late" came due at +40 minutes, but the hour since the email ends at +85.
	due(at.Add(59*time.Minute), 0)
	at = at.Add(time.Hour)
	if dg, err = q.Take(bob.ID, at); err != nil || len(dg.Entries) != 1 || dg.Dropped != 0 || dg.Failures != 0 {
		t.Fatalf("Take after the hour: %+v, %v", dg, err)
	}
	// Read by then: nothing is mailed, and with the hour since the last email over, the row goes.
	c.clock.Set(at)
	if err := q.Done(dg, time.Time{}); err != nil {
		t.Fatal(err)
	}
	pending(0)
	due(at.Add(time.Hour), 0)
	if err := c.db.View(func(r *store.Reader) error {
		_, err := r.DigestState(bob.ID)
		if !isNotFound(err) {
			t.Errorf("the state row stays with nothing pending and the hour over: %v", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
