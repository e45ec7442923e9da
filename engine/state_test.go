package engine

import (
	"context"
	"testing"

	svcv1 "hearth/proto/svc/v1"
)

// GetState's Directory and database snapshot must be of one seq: a read position moved by a
// commit after the Directory's seq would otherwise show, and its read_state event arrive again.
// A Directory older than the snapshot (as when a commit lands between the two) is refused, and
// the last attempt takes it.
func TestStateWantsOneSeq(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner := c.join("owner")
	ch, err := c.e.CreateChannel(ctx, owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	old := c.e.dir.Load()
	if _, err := c.e.SendMessage(ctx, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetChannel().GetId(), Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	current := c.e.dir.Load()
	c.e.dir.Store(old) // as if the commit had landed and its Directory were not yet published
	if _, err := c.e.state(owner, false); err != errStaleSnapshot {
		t.Fatalf("state with an older Directory than the snapshot: %v, want errStaleSnapshot", err)
	}
	st, err := c.e.state(owner, true)
	if err != nil || st.GetSeq() != old.Seq() {
		t.Fatalf("the last attempt: seq %d, %v; want seq %d", st.GetSeq(), err, old.Seq())
	}
	c.e.dir.Store(current)
	st, err = c.e.GetState(ctx, owner, &svcv1.GetStateRequest{})
	if err != nil || st.GetSeq() != current.Seq() || st.GetReadStates()[0].GetLastReadSeq() != current.Seq() {
		t.Fatalf("GetState: %v, %v; want seq %d, read to it", st, err, current.Seq())
	}
}
