package engine

import (
	"context"
	"testing"

	svcv1 "hearth/proto/svc/v1"
)

// GetState's Snapshot and read transaction must be of one seq: a read position moved by a
// commit after the Snapshot's seq would otherwise show, and its read_state event arrive again.
// A Snapshot older than the transaction (as when a commit lands between the two) is refused, and
// the last attempt takes it.
func TestStateWantsOneSeq(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner := c.join("owner")
	ch, err := c.e.CreateChannel(ctx, owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	old := c.e.snap.Load()
	if _, err := c.e.SendMessage(ctx, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetChannel().GetId(), Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	current := c.e.snap.Load()
	c.e.snap.Store(old) // as if the commit had landed and its Snapshot were not yet published
	if _, err := c.e.state(owner, false); err != errStaleSnapshot {
		t.Fatalf("state with an older Snapshot than the read transaction: %v, want errStaleSnapshot", err)
	}
	st, err := c.e.state(owner, true)
	if err != nil || st.GetSeq() != old.Seq() {
		t.Fatalf("the last attempt: seq %d, %v; want seq %d", st.GetSeq(), err, old.Seq())
	}
	c.e.snap.Store(current)
	st, err = c.e.GetState(ctx, owner, &svcv1.GetStateRequest{})
	if err != nil || st.GetSeq() != current.Seq() || st.GetReadStates()[0].GetLastReadSeq() != current.Seq() {
		t.Fatalf("GetState: %v, %v; want seq %d, read to it", st, err, current.Seq())
	}
}
