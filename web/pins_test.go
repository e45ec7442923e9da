package web_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

func pinErr(c *webtest.Client, id string) error {
	_, err := c.Chat.PinMessage(ctx, req(&svcv1.PinMessageRequest{MessageId: id}))
	return err
}

func unpinErr(c *webtest.Client, id string) error {
	_, err := c.Chat.UnpinMessage(ctx, req(&svcv1.UnpinMessageRequest{MessageId: id}))
	return err
}

// pinnedIDs lists a channel's pins as c sees them.
func pinnedIDs(t *testing.T, c *webtest.Client, channelID string) []string {
	t.Helper()
	res, err := c.Chat.ListPins(ctx, req(&svcv1.ListPinsRequest{ChannelId: channelID}))
	if err != nil {
		t.Fatal(err)
	}
	return idsOf(res.Msg.GetMessages())
}

// TestPinAndUnpin: a pin sets pinned_at_ms and pinned_by, bumps the seq and sends
// message_updated; ListPins lists the newest pin first; repeating a pin or an unpin changes and
// sends nothing; a deleted message leaves the pins; pins survive a restart.
func TestPinAndUnpin(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob := c.join("bob")
	general := c.channel("general")
	first := c.send(bob, general.GetId(), "the rules")
	second := c.send(bob, general.GetId(), "the next meet-up")
	st := bob.Subscribe(t, c.s.Engine.Seq())

	c.clock.Advance(time.Minute)
	res, err := mod.Chat.PinMessage(ctx, req(&svcv1.PinMessageRequest{MessageId: first.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	pinned := res.Msg.GetMessage()
	if pinned.GetPinnedAtMs() != c.clock.Now().UnixMilli() || pinned.GetPinnedBy() != mod.Member.GetId() || pinned.GetSeq() <= first.GetSeq() {
		t.Fatalf("pinned: at %d by %s seq %d; want at %d by %s, seq above %d", pinned.GetPinnedAtMs(), pinned.GetPinnedBy(), pinned.GetSeq(),
			c.clock.Now().UnixMilli(), mod.Member.GetId(), first.GetSeq())
	}
	if ev := nextUpdate(t, st); ev.GetPinnedAtMs() != pinned.GetPinnedAtMs() || ev.GetSeq() != pinned.GetSeq() {
		t.Fatalf("the event: %v, want the response's message", ev)
	}
	quiet(t, "pinning again", c.owner, func() {
		res, err := c.owner.Chat.PinMessage(ctx, req(&svcv1.PinMessageRequest{MessageId: first.GetId()}))
		if err != nil || res.Msg.GetMessage().GetSeq() != pinned.GetSeq() || res.Msg.GetMessage().GetPinnedBy() != mod.Member.GetId() {
			t.Errorf("pinning again: %v %v, want the message as pinned first", res, err)
		}
	}, st)
	c.clock.Advance(time.Second)
	if err := pinErr(c.owner, second.GetId()); err != nil {
		t.Fatal(err)
	}
	nextUpdate(t, st)
	if got := pinnedIDs(t, bob, general.GetId()); !slices.Equal(got, ids(second, first)) {
		t.Fatalf("ListPins: %v, want the newest pin first %v", got, ids(second, first))
	}

	// Unpin, once.
	if err := unpinErr(mod, second.GetId()); err != nil {
		t.Fatal(err)
	}
	if ev := nextUpdate(t, st); ev.GetPinnedAtMs() != 0 || ev.GetPinnedBy() != "" {
		t.Fatalf("unpinned: %v", ev)
	}
	quiet(t, "unpinning again", c.owner, func() {
		if err := unpinErr(mod, second.GetId()); err != nil {
			t.Error(err)
		}
	}, st)
	if got := pinnedIDs(t, bob, general.GetId()); !slices.Equal(got, ids(first)) {
		t.Fatalf("ListPins after the unpin: %v", got)
	}

	// Pins survive a restart; a deleted message leaves them.
	c.s.Restart()
	owner := c.s.Client(c.s.Token("owner"))
	if got := pinnedIDs(t, owner, general.GetId()); !slices.Equal(got, ids(first)) {
		t.Fatalf("ListPins after a restart: %v", got)
	}
	if got := listedMessage(t, owner, first); got.GetPinnedBy() != mod.Member.GetId() {
		t.Fatalf("after a restart the message is pinned by %q", got.GetPinnedBy())
	}
	if _, err := owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: first.GetId()})); err != nil {
		t.Fatal(err)
	}
	if got := pinnedIDs(t, owner, general.GetId()); len(got) != 0 {
		t.Fatalf("ListPins after the delete: %v", got)
	}
	if got := listedMessage(t, owner, first); got.GetPinnedAtMs() != 0 || got.GetPinnedBy() != "" {
		t.Fatalf("a deleted message still says it is pinned: %v", got)
	}
	wantCode(t, "pinning a deleted message", pinErr(owner, first.GetId()), connect.CodeNotFound, "deleted")
}

// TestPinRules: who may pin where, and what cannot be pinned.
func TestPinRules(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	member := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	outsider := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	general := c.channel("general")
	private := mustChannel(t, c.owner, "private", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	if _, err := c.owner.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: private.GetId(), MemberIds: memberIDs(mod, member)})); err != nil {
		t.Fatal(err)
	}
	dm := openDM(t, c.s, member, outsider)
	inGeneral := c.send(member, general.GetId(), "in general")
	inPrivate := c.send(member, private.GetId(), "in private")
	inDM := c.send(member, dm.GetId(), "in the DM")
	reply := mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "a reply", ThreadRootId: inGeneral.GetId()})

	for _, tc := range []struct {
		name string
		by   *webtest.Client
		msg  *svcv1.Message
		code connect.Code
		says string
	}{
		{"a member, in a TEXT channel", member, inGeneral, connect.CodePermissionDenied, "moderator"},
		{"a member, in a private channel", member, inPrivate, connect.CodePermissionDenied, "moderator"},
		{"a moderator outside a private channel", outsider, inPrivate, connect.CodePermissionDenied, "cannot see"},
		{"the owner outside a DM", c.owner, inDM, connect.CodePermissionDenied, "cannot see"},
		{"a thread reply", mod, reply, connect.CodeInvalidArgument, "thread reply"},
		{"a moderator, in a TEXT channel", mod, inGeneral, 0, ""},
		{"a moderator, in a private channel", mod, inPrivate, 0, ""},
		{"a member, in their DM", member, inDM, 0, ""},
	} {
		wantCode(t, "pin: "+tc.name, pinErr(tc.by, tc.msg.GetId()), tc.code, tc.says)
		wantCode(t, "unpin: "+tc.name, unpinErr(tc.by, tc.msg.GetId()), tc.code, tc.says)
	}
	wantCode(t, "an unknown message", pinErr(mod, "0190f0a0-0000-7000-8000-000000000000"), connect.CodeNotFound, "does not exist")
	wantCode(t, "ListPins of a channel one cannot see", func() error {
		_, err := outsider.Chat.ListPins(ctx, req(&svcv1.ListPinsRequest{ChannelId: private.GetId()}))
		return err
	}(), connect.CodePermissionDenied, "cannot see")
	wantCode(t, "ListPins of an unknown channel", func() error {
		_, err := member.Chat.ListPins(ctx, req(&svcv1.ListPinsRequest{ChannelId: "nope"}))
		return err
	}(), connect.CodeNotFound, "nope")

	// In a DM whose members blocked each other a pin is refused, an unpin is not.
	if err := pinErr(member, inDM.GetId()); err != nil {
		t.Fatal(err)
	}
	c.s.SeedBlock(outsider, member)
	wantCode(t, "a pin in a DM with a block", pinErr(outsider, inDM.GetId()), connect.CodePermissionDenied, "blocked")
	wantCode(t, "an unpin in a DM with a block", unpinErr(outsider, inDM.GetId()), 0)
}

// TestPinLimit: 50 pins per channel; the 51st is resource_exhausted until one goes (a delete
// frees its place too). Other channels have their own 50.
func TestPinLimit(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general, other := c.channel("general"), c.channel("other")
	var ms []*svcv1.Message
	for i := range 52 {
		ms = append(ms, c.send(c.owner, general.GetId(), fmt.Sprintf("message %d", i)))
	}
	for _, m := range ms[:50] {
		if err := pinErr(c.owner, m.GetId()); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, "the 51st pin", pinErr(c.owner, ms[50].GetId()), connect.CodeResourceExhausted, "50")
	elsewhere := c.send(c.owner, other.GetId(), "elsewhere")
	wantCode(t, "a pin in another channel", pinErr(c.owner, elsewhere.GetId()), 0)
	if err := unpinErr(c.owner, ms[0].GetId()); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "a pin after an unpin", pinErr(c.owner, ms[50].GetId()), 0)
	if _, err := c.owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: ms[1].GetId()})); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "a pin after a pinned message was deleted", pinErr(c.owner, ms[51].GetId()), 0)
	if got := pinnedIDs(t, c.owner, general.GetId()); len(got) != 50 || got[0] != ms[51].GetId() {
		t.Fatalf("ListPins: %d pins, newest %v", len(got), got[:1])
	}
}
