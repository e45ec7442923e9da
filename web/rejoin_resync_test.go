package web_test

import (
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestReturningMemberResumingFromBeforeTheReturnGetsResync: a member who leaves and comes back
// starts over (rank and roles reset, out of the private channels), and nothing of that is in an
// event they may see. A client resuming from a seq before the return would keep the old
// sidebar, so it gets resync; one resuming from after the return, or replaying from 0 with no
// state at all, gets the events.
func TestReturningMemberResumingFromBeforeTheReturnGetsResync(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	secret := mustChannel(t, alice, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	if _, err := alice.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: []string{bob.Member.GetId()}})); err != nil {
		t.Fatal(err)
	}
	before := s.Engine.Seq() // bob's client has applied everything up to here

	if _, err := bob.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	back := s.Join("bob")
	if back.Member.GetId() != bob.Member.GetId() {
		t.Fatalf("bob came back as %s, was %s", back.Member.GetId(), bob.Member.GetId())
	}
	st, err := back.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range st.Msg.GetChannels() {
		if c.GetId() == secret.GetId() {
			t.Fatalf("bob is back in the private channel he left: %v", c)
		}
	}
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)

	if ev := back.Subscribe(t, before).Next(); !ev.GetResync() {
		t.Fatalf("resuming from before the return: first event %v, want resync", ev)
	}
	// From the state loaded after the return: the events since, no resync.
	if ev := back.Subscribe(t, st.Msg.GetSeq()).Next(); ev.GetChannelCreated().GetId() != general.GetId() {
		t.Fatalf("resuming from after the return: first event %v, want channel_created of general", ev)
	}
	// From 0, a client with no state: a replay of what he may see now, no resync.
	if ev := back.Subscribe(t, 0).Next(); ev.GetResync() {
		t.Fatalf("replaying from 0: got resync")
	}
}
