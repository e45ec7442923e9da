package web_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// kind names an event's payload, for readable failures and comparisons.
func kind(ev *svcv1.Event) string {
	switch k := ev.GetKind().(type) {
	case *svcv1.Event_MessageCreated:
		return "message_created:" + k.MessageCreated.GetText()
	case *svcv1.Event_MessageUpdated:
		return "message_updated:" + k.MessageUpdated.GetText()
	case *svcv1.Event_MessageDeleted:
		return "message_deleted"
	case *svcv1.Event_ChannelCreated:
		return "channel_created:" + k.ChannelCreated.GetName()
	case *svcv1.Event_ChannelUpdated:
		return "channel_updated:" + k.ChannelUpdated.GetName()
	case *svcv1.Event_ChannelDeleted:
		return "channel_deleted"
	case *svcv1.Event_MemberJoined:
		return "member_joined:" + k.MemberJoined.GetUsername()
	case *svcv1.Event_MemberUpdated:
		return "member_updated:" + k.MemberUpdated.GetUsername()
	case *svcv1.Event_ReadState:
		return fmt.Sprintf("read_state:%d", k.ReadState.GetLastReadSeq())
	case *svcv1.Event_Resync:
		return "resync"
	case *svcv1.Event_ServerUpdated:
		return "server_updated"
	case *svcv1.Event_ReportFiled:
		return "report_filed:" + k.ReportFiled.GetMessage().GetText()
	default:
		return fmt.Sprintf("%T", k)
	}
}

// marker makes an event every member receives (alice's bio changes) and returns what the
// stream got up to it, marker excluded: the exact set of events a member received in between.
func marker(t *testing.T, by *webtest.Client, streams ...*webtest.Stream) [][]string {
	t.Helper()
	bio := fmt.Sprintf("marker %d", markers.Add(1))
	if _, err := by.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(streams))
	for i, st := range streams {
		evs := st.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio })
		for _, ev := range evs[:len(evs)-1] {
			out[i] = append(out[i], kind(ev))
		}
	}
	return out
}

var markers atomic.Int64

func mustChannel(t *testing.T, c *webtest.Client, name string, kind svcv1.ChannelKind) *svcv1.Channel {
	t.Helper()
	res, err := c.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: name, Kind: kind}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetChannel()
}

func mustSend(t *testing.T, c *webtest.Client, r *svcv1.SendMessageRequest) *svcv1.Message {
	t.Helper()
	res, err := c.Chat.SendMessage(ctx, req(r))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetMessage()
}

func TestChannelNamesAndLimits(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	admin := s.Join("admin")
	member := s.Join("member")
	ch := mustChannel(t, admin, "Hello World!", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	if ch.GetName() != "hello-world" {
		t.Fatalf("name = %q, want hello-world", ch.GetName())
	}
	if ch2 := mustChannel(t, admin, "  Été -- à Paris ", svcv1.ChannelKind_CHANNEL_KIND_TEXT); ch2.GetName() != "été-à-paris" || ch2.GetPosition() != 1 {
		t.Fatalf("second channel = %v", ch2)
	}
	for _, tc := range []struct {
		r    *svcv1.CreateChannelRequest
		code connect.Code
		want string
	}{
		{&svcv1.CreateChannelRequest{Name: "!!!", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}, connect.CodeInvalidArgument, "name must contain a letter or a digit"},
		{&svcv1.CreateChannelRequest{Name: "", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}, connect.CodeInvalidArgument, "name must contain"},
		{&svcv1.CreateChannelRequest{Name: strings.Repeat("a", 81), Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}, connect.CodeInvalidArgument, "name is 81 characters; the limit is 80"},
		{&svcv1.CreateChannelRequest{Name: "x", Kind: svcv1.ChannelKind_CHANNEL_KIND_DM}, connect.CodeInvalidArgument, "kind must be"},
		{&svcv1.CreateChannelRequest{Name: "x", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Topic: strings.Repeat("t", 1025)}, connect.CodeInvalidArgument, "topic is 1,025 characters"},
	} {
		_, err := admin.Chat.CreateChannel(ctx, req(tc.r))
		if codeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CreateChannel(%v) = %v, want %v %q", tc.r, err, tc.code, tc.want)
		}
	}
	_, err := member.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: "mine", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if codeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("a member creating a channel: %v", err)
	}
	upd, err := admin.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), Name: ptr("Big News"), Topic: ptr("t"), Category: ptr("Info"), Position: ptr(int32(7))}))
	if err != nil {
		t.Fatal(err)
	}
	if c := upd.Msg.GetChannel(); c.GetName() != "big-news" || c.GetTopic() != "t" || c.GetCategory() != "Info" || c.GetPosition() != 7 {
		t.Fatalf("UpdateChannel = %v", c)
	}
	_, err = admin.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: "00000000-0000-0000-0000-000000000000", Topic: ptr("x")}))
	if codeOf(err) != connect.CodeNotFound {
		t.Fatalf("UpdateChannel of an unknown channel: %v", err)
	}
}

// TestEventsReachExactlyTheRightMembers: two members in separate streams, every messaging call,
// the exact events each receives in seq order.
func TestEventsReachExactlyTheRightMembers(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice") // owner
	bob := s.Join("bob")
	carol := s.Join("carol")
	seq := s.Engine.Seq()
	bobSt, carolSt := bob.Subscribe(t, seq), carol.Subscribe(t, seq)

	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := mustChannel(t, alice, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	got := marker(t, alice, bobSt, carolSt)
	want := []string{"channel_created:general"}
	for i := range got {
		if strings.Join(got[i], ",") != strings.Join(want, ",") {
			t.Fatalf("stream %d got %v, want %v", i, got[i], want)
		}
	}

	m := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "hi <@" + carol.Member.GetId() + ">"})
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "private"})
	reply := mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "reply", ThreadRootId: m.GetId()})
	if _, err := bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: "hello"})); err != nil {
		t.Fatal(err)
	}
	if _, err := carol.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: "👍"})); err != nil {
		t.Fatal(err)
	}
	if _, err := carol.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: reply.GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: general.GetId(), Seq: reply.GetSeq()})); err != nil {
		t.Fatal(err)
	}
	got = marker(t, alice, bobSt, carolSt)
	wantBob := []string{"message_created:hi <@" + carol.Member.GetId() + ">", "message_created:reply", "message_updated:hi <@" + carol.Member.GetId() + ">",
		"message_updated:hello", "message_updated:hello", "message_deleted", fmt.Sprintf("read_state:%d", reply.GetSeq())}
	wantCarol := wantBob[:len(wantBob)-1]
	if strings.Join(got[0], "|") != strings.Join(wantBob, "|") {
		t.Errorf("bob got\n%v\nwant\n%v", got[0], wantBob)
	}
	if strings.Join(got[1], "|") != strings.Join(wantCarol, "|") {
		t.Errorf("carol got\n%v\nwant\n%v", got[1], wantCarol)
	}
}

// TestSeqRules: created_seq never changes; an edit, a reaction and a new reply bump seq to the
// seq of the event that made the change; a reply bumps its root's reply_count and time.
func TestSeqRules(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	st := bob.Subscribe(t, s.Engine.Seq())
	root := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "root"})
	if root.GetSeq() != root.GetCreatedSeq() || st.Next().GetSeq() != root.GetCreatedSeq() {
		t.Fatalf("new message seq %d created_seq %d", root.GetSeq(), root.GetCreatedSeq())
	}
	reply := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "r1", ThreadRootId: root.GetId()})
	created, updated := st.Next(), st.Next()
	if created.GetMessageCreated().GetId() != reply.GetId() || created.GetSeq() != reply.GetCreatedSeq() {
		t.Fatalf("reply event %v", created)
	}
	u := updated.GetMessageUpdated()
	if u.GetId() != root.GetId() || u.GetReplyCount() != 1 || u.GetLastReplyAtMs() != reply.GetCreatedAtMs() ||
		u.GetSeq() != updated.GetSeq() || u.GetSeq() != reply.GetCreatedSeq()+1 || u.GetCreatedSeq() != root.GetCreatedSeq() {
		t.Fatalf("root after a reply = %v (event seq %d)", u, updated.GetSeq())
	}
	ed, err := alice.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: root.GetId(), Text: "root!"}))
	if err != nil {
		t.Fatal(err)
	}
	ev := st.Next()
	if e := ed.Msg.GetMessage(); e.GetSeq() != ev.GetSeq() || e.GetEditedAtMs() == 0 || e.GetCreatedSeq() != root.GetCreatedSeq() || e.GetReplyCount() != 1 {
		t.Fatalf("edited = %v, event seq %d", e, ev.GetSeq())
	}
	_, err = bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: root.GetId(), Text: "mine now"}))
	if codeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("editing another's message: %v", err)
	}
	r, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: root.GetId(), Emoji: ":tada:"}))
	if err != nil {
		t.Fatal(err)
	}
	ev = st.Next()
	if m := r.Msg.GetMessage(); m.GetSeq() != ev.GetSeq() || len(m.GetReactions()) != 1 || m.GetReactions()[0].GetMemberIds()[0] != bob.Member.GetId() {
		t.Fatalf("reacted = %v, event seq %d", m, ev.GetSeq())
	}
	// Reacting twice, and removing what is not there, change nothing and send nothing.
	before := s.Engine.Seq()
	if _, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: root.GetId(), Emoji: ":tada:"})); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: root.GetId(), Emoji: ":tada:", Remove: true})); err != nil {
		t.Fatal(err)
	}
	if s.Engine.Seq() != before {
		t.Fatal("an idempotent reaction produced an event")
	}
	r, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: root.GetId(), Emoji: ":tada:", Remove: true}))
	if err != nil || len(r.Msg.GetMessage().GetReactions()) != 0 {
		t.Fatalf("removing the reaction: %v %v", r, err)
	}
}

func TestSendLimitsAndIdempotency(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)

	// 8,000 characters, counted as characters: 8,000 three-byte runes pass.
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: strings.Repeat("€", 8000)})
	for _, tc := range []struct {
		r    *svcv1.SendMessageRequest
		code connect.Code
		want string
	}{
		{&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: strings.Repeat("a", 8001)}, connect.CodeInvalidArgument, "text is 8,001 characters; the limit is 8,000"},
		{&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "  "}, connect.CodeInvalidArgument, "text must not be empty"},
		{&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "x", AttachmentIds: make([]string, 11)}, connect.CodeInvalidArgument, "attachment_ids has 11 ids; the limit is 10"},
		{&svcv1.SendMessageRequest{ChannelId: "nope", Text: "x"}, connect.CodeNotFound, "channel nope does not exist"},
		{&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "x", ThreadRootId: "nope"}, connect.CodeNotFound, "thread_root_id nope"},
		{&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "x", ClientId: strings.Repeat("c", 65)}, connect.CodeInvalidArgument, "client_id is 65 bytes; the limit is 64"},
	} {
		_, err := bob.Chat.SendMessage(ctx, req(tc.r))
		if codeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SendMessage(%.60v) = %v, want %v %q", tc.r, err, tc.code, tc.want)
		}
	}

	// client_id: a repeat within 24 h returns the first message; after, it is a new one.
	first := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "once", ClientId: "k1"})
	seq := s.Engine.Seq()
	again := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "once", ClientId: "k1"})
	if again.GetId() != first.GetId() || s.Engine.Seq() != seq || again.GetClientId() != "k1" {
		t.Fatalf("repeat of client_id k1 = %v (seq %d -> %d)", again, seq, s.Engine.Seq())
	}
	if other := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "once", ClientId: "k1"}); other.GetId() == first.GetId() {
		t.Fatal("client_id is per author, but alice got bob's message")
	}
	// A repeat elsewhere shows nothing of the first message: bob may no longer see its channel.
	random := mustChannel(t, alice, "random", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	_, err := bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: random.GetId(), Text: "once", ClientId: "k1"}))
	wantCode(t, "client_id k1 again in another channel", err, connect.CodeFailedPrecondition, `client_id "k1" was used in the last 24 hours for a message elsewhere`)
	_, err = bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "once", ClientId: "k1", ThreadRootId: first.GetId()}))
	wantCode(t, "client_id k1 again as a reply", err, connect.CodeFailedPrecondition, "elsewhere")
	clock.Advance(24*60*60e9 + 1e9)
	if later := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "once", ClientId: "k1"}); later.GetId() == first.GetId() {
		t.Fatal("client_id still idempotent after 24 h")
	}

	// Rate: a burst of 10, then resource_exhausted saying when to retry; the clock does not move.
	carol := s.Join("carol")
	for i := range 10 {
		mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: fmt.Sprint(i)})
	}
	_, err = carol.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "too many"}))
	if codeOf(err) != connect.CodeResourceExhausted || !strings.Contains(err.Error(), "retry in 200ms") {
		t.Fatalf("11th message in a burst: %v, want resource_exhausted retry in 200ms", err)
	}
	clock.Advance(200e6)
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "after the wait"})
}

func TestReactionLimit(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	m := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "react to me"})
	for i := range 50 {
		if _, err := alice.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: fmt.Sprintf(":e%d:", i)})); err != nil {
			t.Fatal(err)
		}
	}
	_, err := alice.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: ":one-more:"}))
	if codeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "the limit is 50") {
		t.Fatalf("51st emoji: %v", err)
	}
	// Another member may still join an existing reaction.
	bob := s.Join("bob")
	if _, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: ":e3:"})); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "hello", ":no spaces:", "a b", ":" + strings.Repeat("x", 63) + ":"} {
		_, err := alice.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: bad}))
		if codeOf(err) != connect.CodeInvalidArgument {
			t.Errorf("emoji %q: %v, want invalid_argument", bad, err)
		}
	}
	if _, err := alice.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()})); err != nil {
		t.Fatal(err)
	}
	_, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: ":e1:"}))
	if codeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("reacting to a deleted message: %v", err)
	}
}

func TestDeleteRules(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	bob := s.Join("bob")
	carol := s.Join("carol")
	ch := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	m := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "bob's"})
	_, err := carol.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()}))
	if codeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("a member deleting another's message: %v", err)
	}
	if _, err := owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()})); err != nil {
		t.Fatalf("the owner deleting: %v", err)
	}
	list, err := bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	if got := list.Msg.GetMessages()[0]; !got.GetDeleted() || got.GetText() != "" {
		t.Fatalf("deleted message lists as %v", got)
	}
	// Deleting twice is fine and sends nothing.
	seq := s.Engine.Seq()
	if _, err := bob.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()})); err != nil || s.Engine.Seq() != seq {
		t.Fatalf("deleting twice: %v (seq %d -> %d)", err, seq, s.Engine.Seq())
	}
	_, err = bob.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: "nope"}))
	if codeOf(err) != connect.CodeNotFound {
		t.Fatalf("deleting an unknown message: %v", err)
	}
}

// TestPrivateChannelIsInvisibleOutside: nothing of a private channel reaches a non-member.
func TestPrivateChannelIsInvisibleOutside(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	bob := s.Join("bob")
	st := bob.Subscribe(t, s.Engine.Seq())
	secret := mustChannel(t, owner, "secret plans", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	m := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "the plan"})
	for name, call := range map[string]func() error{
		"ListMessages": func() error {
			_, err := bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: secret.GetId()}))
			return err
		},
		"SendMessage": func() error {
			_, err := bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "x"}))
			return err
		},
		"React": func() error {
			_, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: "👀"}))
			return err
		},
		"EditMessage": func() error {
			_, err := bob.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: "x"}))
			return err
		},
		"MarkRead": func() error {
			_, err := bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: secret.GetId(), Seq: 1}))
			return err
		},
		"SetTyping": func() error {
			_, err := bob.Chat.SetTyping(ctx, req(&svcv1.SetTypingRequest{ChannelId: secret.GetId()}))
			return err
		},
	} {
		err := call()
		if codeOf(err) != connect.CodePermissionDenied || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "plan") {
			t.Errorf("%s by an outsider: %v, want permission_denied revealing nothing", name, err)
		}
	}
	state, err := bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range state.Msg.GetChannels() {
		if c.GetId() == secret.GetId() {
			t.Fatal("the private channel is in an outsider's GetState")
		}
	}
	if got := marker(t, owner, st)[0]; len(got) != 0 {
		t.Fatalf("an outsider received %v", got)
	}
}

// Moderators and up delete others' messages only where they outrank the author: nobody acts
// on a member of equal or higher rank.
func TestDeleteMessageRanks(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	ch := mustChannel(t, c.owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	ranked := []struct {
		name string
		cl   *webtest.Client
		rank int
	}{{"owner", c.owner, 4}, {"admin", c.admin, 3}, {"mod", c.mod, 2}, {"member", c.member, 1}, {"bot", c.bot, 1}}
	for _, author := range ranked {
		for _, caller := range []struct {
			name string
			cl   *webtest.Client
			rank int
		}{{"owner", c.owner, 4}, {"admin2", c.admin2, 3}, {"mod2", c.mod2, 2}, {"member2", c.member2, 1}} {
			m := mustSend(t, author.cl, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "from " + author.name})
			_, err := caller.cl.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()}))
			want := connect.CodePermissionDenied
			if caller.cl == author.cl || (caller.rank >= 2 && caller.rank > author.rank) {
				want = codeOK
			}
			checkCode(t, caller.name+" deletes a message of "+author.name, err, want)
		}
	}
	// The author may always delete their own.
	m := mustSend(t, c.member, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "mine"})
	_, err := c.member.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()}))
	checkCode(t, "the author deletes their own", err, codeOK)
}
