package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// collect reads from f until it has seen the event with seq last (failing the test if that
// takes 30 s), and returns the seqs of the logged events in the order handed over.
func collect(t *testing.T, f *Follower, last int64) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var seqs []int64
	err := f.Run(ctx, func(ds []Delivery) error {
		for _, d := range ds {
			if s := d.Event().GetSeq(); s > 0 {
				seqs = append(seqs, s)
			}
		}
		if len(seqs) > 0 && seqs[len(seqs)-1] >= last {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("following until seq %d: %v (got %d events)", last, err, len(seqs))
	}
	return seqs
}

var errStop = errors.New("stop")

func textChannel(t *testing.T, e *Engine, owner Caller, kind svcv1.ChannelKind) string {
	t.Helper()
	ch, err := e.CreateChannel(context.Background(), owner, &svcv1.CreateChannelRequest{Name: "room", Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	return ch.GetChannel().GetId()
}

// TestFollowerReplaysThenGoesLiveWithoutGapOrRepeat: a follower that starts behind gets the
// logged events in chunks, then the ones committed while it replays, each once and in seq
// order.
func TestFollowerReplaysThenGoesLiveWithoutGapOrRepeat(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	chID := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for i := range 2*replayChunk + 10 {
		c.send(owner, chID, "before "+itoa(i), "")
	}
	f, err := c.e.Follow(FollowOptions{AfterSeq: 0, LoggedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// More commits while the follower has not read anything: they are past its replay's end,
	// so they must come from the hub, after the replay.
	var last int64
	for i := range 40 {
		last = c.send(owner, chID, "during "+itoa(i), "").GetCreatedSeq()
	}
	seqs := collect(t, f, last)
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("event %d has seq %d: want every seq from 1 once, in order (got %v...)", i, s, seqs[:min(len(seqs), i+3)])
		}
	}
	if int64(len(seqs)) != last {
		t.Fatalf("got %d events, want %d", len(seqs), last)
	}
}

// TestFollowerOutsideTheLogResyncs: a position newer than the log, or older than what it
// keeps, cannot be followed.
func TestFollowerOutsideTheLogResyncs(t *testing.T) {
	c := openTestCommunity(t)
	c.join("owner")
	for _, after := range []int64{c.e.Seq() + 1, -1} {
		if _, err := c.e.Follow(FollowOptions{AfterSeq: after}); !errors.Is(err, ErrResync) {
			t.Errorf("Follow after %d: %v, want ErrResync", after, err)
		}
	}
}

// TestFollowerFallenOffTheRingResyncs: a follower further behind than the hub's ring gets
// ErrResync, never a gap.
func TestFollowerFallenOffTheRingResyncs(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(t.TempDir(), "db"), store.ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	clock := newTestClock()
	e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log, Clock: clock, RingSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	owner := benchJoin(t, e, "owner")
	chID := textChannel(t, e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	f, err := e.Follow(FollowOptions{AfterSeq: e.Seq()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := range 20 {
		clock.Advance(time.Second)
		if _, err := e.SendMessage(context.Background(), owner, &svcv1.SendMessageRequest{ChannelId: chID, Text: itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if ds, err := f.Next(); !errors.Is(err, ErrResync) {
		t.Fatalf("Next after 20 commits on a ring of 16: %d events, %v; want ErrResync", len(ds), err)
	}
}

// ownerBobAndTwoChannels is a community set up by its owner, with bob in it, a private channel
// bob is not in and a text channel everyone is in.
func ownerBobAndTwoChannels(t *testing.T) (c *testCommunity, owner, bob Caller, private, public string) {
	t.Helper()
	c = openTestCommunity(t)
	owner, bob = c.join("owner"), c.join("bob")
	done := true
	if _, err := c.e.UpdateServerSettings(context.Background(), owner, &svcv1.UpdateServerSettingsRequest{SetupComplete: &done}); err != nil {
		t.Fatal(err)
	}
	private = textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	public = textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	return c, owner, bob, private, public
}

// TestFollowerAsAMember: following as a member hands over only what they may receive,
// ephemeral events included unless LoggedOnly, and ends with ErrGone once they leave.
func TestFollowerAsAMember(t *testing.T) {
	c, owner, bob, private, public := ownerBobAndTwoChannels(t)
	ctx := context.Background()
	all, err := c.e.Follow(FollowOptions{AfterSeq: c.e.Seq(), Member: bob.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	logged, err := c.e.Follow(FollowOptions{AfterSeq: c.e.Seq(), Member: bob.ID, LoggedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer logged.Close()

	hidden := c.send(owner, private, "not for bob", "")
	if _, err := c.e.SetTyping(ctx, owner, &svcv1.SetTypingRequest{ChannelId: public}); err != nil {
		t.Fatal(err)
	}
	seen := c.send(owner, public, "for everyone", "")
	if _, err := c.e.LeaveCommunity(ctx, bob, &svcv1.LeaveCommunityRequest{}); err != nil {
		t.Fatal(err)
	}
	c.send(owner, public, "after bob left", "")

	kinds := func(f *Follower) []string {
		var out []string
		for {
			ds, err := f.Next()
			if errors.Is(err, ErrGone) {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) == 0 {
				t.Fatalf("the follower waits after %v: want ErrGone once bob left", out)
			}
			for _, d := range ds {
				ev := d.Event()
				switch {
				case ev.GetMessageCreated().GetId() == hidden.GetId():
					t.Fatal("bob was handed a message of a private channel he is not in")
				case ev.GetMessageCreated() != nil:
					out = append(out, "message "+ev.GetMessageCreated().GetText())
				case ev.GetTyping() != nil:
					out = append(out, "typing")
				}
			}
		}
	}
	if got := kinds(all); len(got) != 2 || got[0] != "typing" || got[1] != "message "+seen.GetText() {
		t.Errorf("following as bob: %v, want the typing, then the public message, then ErrGone", got)
	}
	if got := kinds(logged); len(got) != 1 || got[0] != "message "+seen.GetText() {
		t.Errorf("following as bob, logged only: %v, want the public message, then ErrGone", got)
	}
}

// TestFollowerLooksAgainWhenTheMembersChange: a follower checks that its member is still in
// the community once per change of the members, not per event; a change of anything else
// keeps the members as they were, and the member leaving still ends the follower at once.
func TestFollowerLooksAgainWhenTheMembersChange(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner, bob := c.join("owner"), c.join("bob")
	public := textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	f, err := c.e.Follow(FollowOptions{AfterSeq: c.e.Seq(), Member: bob.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	next := func() ([]Delivery, error) {
		t.Helper()
		ds, err := f.Next()
		if err == nil && len(ds) == 0 {
			t.Fatal("nothing for bob")
		}
		return ds, err
	}

	c.send(owner, public, "one", "")
	if _, err := next(); err != nil {
		t.Fatal(err)
	}
	before := c.e.Snapshot().membersGen
	textChannel(t, c.e, owner, svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	c.send(owner, public, "two", "")
	if _, err := next(); err != nil {
		t.Fatal(err)
	}
	if got := c.e.Snapshot().membersGen; got != before {
		t.Errorf("a new channel changed the members' generation: %d -> %d", before, got)
	}

	if _, err := c.e.LeaveCommunity(ctx, bob, &svcv1.LeaveCommunityRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := c.e.Snapshot().membersGen; got == before {
		t.Error("bob leaving kept the members' generation")
	}
	c.send(owner, public, "three", "")
	for {
		ds, err := f.Next()
		if errors.Is(err, ErrGone) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Event().GetMessageCreated().GetText() == "three" {
				t.Fatal("bob was handed a message sent after he left")
			}
		}
		if len(ds) == 0 {
			t.Fatal("the follower waits: want ErrGone once bob left")
		}
	}
}
