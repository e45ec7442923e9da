package web_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

func votePoll(c *webtest.Client, id string, options ...string) (*svcv1.Message, error) {
	res, err := c.Chat.VotePoll(ctx, req(&svcv1.VotePollRequest{MessageId: id, OptionIds: options}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMessage(), nil
}

func closePollErr(c *webtest.Client, id string) error {
	_, err := c.Chat.ClosePoll(ctx, req(&svcv1.ClosePollRequest{MessageId: id}))
	return err
}

// voters shows a poll's votes: "option: voter, voter; ...".
func voters(m *svcv1.Message, names map[string]string) string {
	var parts []string
	for _, o := range m.GetPoll().GetOptions() {
		var vs []string
		for _, id := range o.GetVoterIds() {
			vs = append(vs, names[id])
		}
		parts = append(parts, o.GetText()+": "+strings.Join(vs, ","))
	}
	return strings.Join(parts, "; ")
}

// TestPollLimits: every limit of SendMessageRequest.poll, and what a poll looks like sent.
func TestPollLimits(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general := c.channel("general")
	root := c.send(c.owner, general.GetId(), "a root")
	now := func() int64 { return c.clock.Now().UnixMilli() }
	poll := func(mod func(p *svcv1.PollInput)) *svcv1.PollInput {
		p := &svcv1.PollInput{Question: "Where do we meet?", Options: []string{"Park", "Pub"}}
		if mod != nil {
			mod(p)
		}
		return p
	}
	options := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("option %d", i))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		req  *svcv1.SendMessageRequest
		poll func(p *svcv1.PollInput)
		code connect.Code
		says string
	}{
		{"a poll without text", &svcv1.SendMessageRequest{}, nil, 0, ""},
		{"a poll with text", &svcv1.SendMessageRequest{Text: "vote!"}, nil, 0, ""},
		{"300 characters of question", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Question = strings.Repeat("é", 300) }, 0, ""},
		{"301 characters of question", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Question = strings.Repeat("é", 301) }, connect.CodeInvalidArgument, "poll.question is 301 characters; the limit is 300"},
		{"an empty question", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Question = "  " }, connect.CodeInvalidArgument, "poll.question must not be empty"},
		{"one option", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Options = options(1) }, connect.CodeInvalidArgument, "poll.options has 1 options; a poll has 2 to 10"},
		{"10 options", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Options = options(10) }, 0, ""},
		{"11 options", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Options = options(11) }, connect.CodeInvalidArgument, "poll.options has 11 options"},
		{"an option of 100 characters", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Options[1] = strings.Repeat("x", 100) }, 0, ""},
		{"an option of 101 characters", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Options[1] = strings.Repeat("x", 101) }, connect.CodeInvalidArgument, "poll.options[1] is 101 characters; the limit is 100"},
		{"an empty option", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Options[0] = " " }, connect.CodeInvalidArgument, "poll.options[0] must not be empty"},
		{"options that differ only in case and spaces", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.Options[1] = " park " }, connect.CodeInvalidArgument, "poll.options[1] repeats poll.options[0]"},
		{"closing in a minute", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.ClosesAtMs = now() + 60_000 }, 0, ""},
		{"closing in 59 seconds", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.ClosesAtMs = now() + 59_000 }, connect.CodeInvalidArgument, "poll.closes_at_ms must be 0 (open until closed) or 1 minute to 30 days ahead"},
		{"closing in 30 days", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.ClosesAtMs = now() + 30*24*3600_000 }, 0, ""},
		{"closing in 30 days and a second", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.ClosesAtMs = now() + 30*24*3600_000 + 1000 }, connect.CodeInvalidArgument, "poll.closes_at_ms"},
		{"closing in the past", &svcv1.SendMessageRequest{}, func(p *svcv1.PollInput) { p.ClosesAtMs = now() - 1000 }, connect.CodeInvalidArgument, "poll.closes_at_ms"},
		{"in a thread reply", &svcv1.SendMessageRequest{ThreadRootId: root.GetId()}, nil, connect.CodeInvalidArgument, "thread reply"},
	} {
		c.clock.Advance(time.Second)
		tc.req.ChannelId, tc.req.Poll = general.GetId(), poll(tc.poll)
		wantCode(t, tc.name, sendErr(c.owner, tc.req), tc.code, tc.says)
	}

	c.clock.Advance(time.Second)
	at := now() + 3600_000
	m := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Poll: &svcv1.PollInput{Question: "Q", Options: []string{"a", "b", "c"}, Multiple: true, ClosesAtMs: at}})
	p := m.GetPoll()
	if p.GetQuestion() != "Q" || !p.GetMultiple() || p.GetClosesAtMs() != at || p.GetClosed() || len(p.GetOptions()) != 3 ||
		p.GetOptions()[0].GetId() != "0" || p.GetOptions()[2].GetId() != "2" || p.GetOptions()[1].GetText() != "b" {
		t.Fatalf("the poll as sent: %v", p)
	}
	// A poll message may lose its text to an edit; another message may not.
	if _, err := c.owner.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: ""})); err != nil {
		t.Errorf("an empty edit of a poll message: %v", err)
	}
}

// TestPollVotes: a vote replaces the caller's vote, an empty one withdraws it; each change
// bumps the seq and sends message_updated, a vote equal to the current one nothing; the rules
// of options, multiple, closing and who may close.
func TestPollVotes(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	mod := c.member(svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bob, carol := c.join("bob"), c.join("carol")
	names := map[string]string{bob.Member.GetId(): "bob", carol.Member.GetId(): "carol", mod.Member.GetId(): "mod"}
	general := c.channel("general")
	single := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Poll: &svcv1.PollInput{Question: "One?", Options: []string{"a", "b", "c"}}})
	c.clock.Advance(time.Second)
	multi := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Poll: &svcv1.PollInput{Question: "Many?", Options: []string{"a", "b", "c"}, Multiple: true}})
	plain := c.send(bob, general.GetId(), "no poll")
	st := carol.Subscribe(t, c.s.Engine.Seq())

	vote := func(by *webtest.Client, m *svcv1.Message, want string, options ...string) {
		t.Helper()
		got, err := votePoll(by, m.GetId(), options...)
		if err != nil {
			t.Fatalf("vote %v: %v", options, err)
		}
		if v := voters(got, names); v != want {
			t.Fatalf("after voting %v: %s, want %s", options, v, want)
		}
		ev := nextUpdate(t, st)
		if ev.GetSeq() != got.GetSeq() || voters(ev, names) != want {
			t.Fatalf("the event: seq %d (response %d), %s", ev.GetSeq(), got.GetSeq(), voters(ev, names))
		}
	}
	vote(carol, single, "a: carol; b: ; c: ", "0")
	vote(bob, single, "a: carol,bob; b: ; c: ", "0")
	vote(carol, single, "a: bob; b: carol; c: ", "1")
	quiet(t, "the same vote again", bob, func() {
		if _, err := votePoll(carol, single.GetId(), "1"); err != nil {
			t.Error(err)
		}
	}, st)
	vote(carol, single, "a: bob; b: ; c: ")
	vote(carol, multi, "a: carol; b: ; c: carol", "2", "0")
	vote(mod, multi, "a: carol; b: mod; c: carol", "1")
	// An option kept keeps its place; one chosen anew goes last.
	vote(carol, multi, "a: ; b: mod,carol; c: carol", "2", "1")

	for _, tc := range []struct {
		name    string
		m       *svcv1.Message
		options []string
		code    connect.Code
		says    string
	}{
		{"two options of a single poll", single, []string{"0", "1"}, connect.CodeInvalidArgument, "option_ids has 2 options; this poll takes one"},
		{"an unknown option", single, []string{"3"}, connect.CodeInvalidArgument, `option_ids[0] "3" is not an option of this poll`},
		{"a repeated option", multi, []string{"1", "1"}, connect.CodeInvalidArgument, `option_ids[1] repeats option "1"`},
		{"a message without a poll", plain, []string{"0"}, connect.CodeInvalidArgument, "has no poll"},
		{"11 option ids", multi, []string{"0", "1", "2", "0", "1", "2", "0", "1", "2", "0", "1"}, connect.CodeInvalidArgument, "option_ids has 11 ids"},
		{"an unknown message", &svcv1.Message{Id: "0190f0a0-0000-7000-8000-000000000000"}, []string{"0"}, connect.CodeNotFound, "does not exist"},
	} {
		_, err := votePoll(carol, tc.m.GetId(), tc.options...)
		wantCode(t, tc.name, err, tc.code, tc.says)
	}

	// Closing: the author or a moderator.
	wantCode(t, "carol closes bob's poll", closePollErr(carol, single.GetId()), connect.CodePermissionDenied, "author or a moderator")
	wantCode(t, "bob closes his poll", closePollErr(bob, single.GetId()), 0)
	if ev := nextUpdate(t, st); !ev.GetPoll().GetClosed() {
		t.Fatalf("the close's event: %v", ev.GetPoll())
	}
	_, err := votePoll(carol, single.GetId(), "0")
	wantCode(t, "a vote in a closed poll", err, connect.CodeFailedPrecondition, "closed")
	quiet(t, "closing again", bob, func() { wantCode(t, "closing again", closePollErr(mod, single.GetId()), 0) }, st)
	wantCode(t, "a moderator closes bob's other poll", closePollErr(mod, multi.GetId()), 0)
	nextUpdate(t, st)
	wantCode(t, "closing a message without a poll", closePollErr(bob, plain.GetId()), connect.CodeInvalidArgument, "has no poll")

	// A deleted poll is neither voted on nor closed.
	c.clock.Advance(time.Second)
	gone := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Poll: &svcv1.PollInput{Question: "Gone?", Options: []string{"a", "b"}}})
	if _, err := bob.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: gone.GetId()})); err != nil {
		t.Fatal(err)
	}
	_, err = votePoll(carol, gone.GetId(), "0")
	wantCode(t, "a vote on a deleted poll", err, connect.CodeFailedPrecondition, "deleted")
	wantCode(t, "closing a deleted poll", closePollErr(bob, gone.GetId()), connect.CodeFailedPrecondition, "deleted")
	if got := listedMessage(t, bob, gone); got.GetPoll() != nil {
		t.Errorf("a deleted message keeps its poll: %v", got.GetPoll())
	}

	// In a DM with a block a vote is refused, withdrawing is not.
	dm := openDM(t, c.s, bob, carol)
	inDM := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Poll: &svcv1.PollInput{Question: "DM?", Options: []string{"a", "b"}}})
	if _, err := votePoll(carol, inDM.GetId(), "0"); err != nil {
		t.Fatal(err)
	}
	c.s.SeedBlock(bob, carol)
	_, err = votePoll(carol, inDM.GetId(), "1")
	// Carol was blocked: she is told she cannot write there, never of the block.
	wantCode(t, "a vote in a DM with a block", err, connect.CodePermissionDenied, "you cannot send messages in this DM")
	_, err = votePoll(carol, inDM.GetId())
	wantCode(t, "withdrawing in a DM with a block", err, 0)
}

// TestPollClosesOnTime: a poll closes by itself at closes_at_ms on the server's clock with a
// message_updated; one due while the server was down closes as it starts; one still open across
// a restart closes at its time after it.
func TestPollClosesOnTime(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	bob := c.join("bob")
	general := c.channel("general")
	newPoll := func(in time.Duration) *svcv1.Message {
		t.Helper()
		c.clock.Advance(time.Second)
		return mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(),
			Poll: &svcv1.PollInput{Question: "When?", Options: []string{"now", "later"}, ClosesAtMs: c.clock.Now().Add(in).UnixMilli()}})
	}
	soon := newPoll(2 * time.Minute)
	later := newPoll(10 * time.Minute)
	st := bob.Subscribe(t, c.s.Engine.Seq())
	if _, err := votePoll(bob, soon.GetId(), "0"); err != nil {
		t.Fatal(err)
	}
	nextUpdate(t, st)

	c.clock.Advance(2 * time.Minute)
	ev := nextUpdate(t, st)
	if ev.GetId() != soon.GetId() || !ev.GetPoll().GetClosed() || len(ev.GetPoll().GetOptions()[0].GetVoterIds()) != 1 {
		t.Fatalf("at closes_at_ms: %v", ev)
	}
	_, err := votePoll(bob, soon.GetId(), "1")
	wantCode(t, "a vote after closes_at_ms", err, connect.CodeFailedPrecondition, "closed")
	if got := listedMessage(t, bob, later); got.GetPoll().GetClosed() {
		t.Fatalf("the later poll closed early")
	}

	// Across a restart: still open until its time, then closed.
	c.s.Restart()
	bob = c.s.Client(bob.Token)
	st = bob.Subscribe(t, c.s.Engine.Seq())
	c.clock.Advance(7 * time.Minute)
	if got := listedMessage(t, bob, later); got.GetPoll().GetClosed() {
		t.Fatalf("the later poll closed early after a restart")
	}
	c.clock.Advance(time.Minute)
	if ev := nextUpdate(t, st); ev.GetId() != later.GetId() || !ev.GetPoll().GetClosed() {
		t.Fatalf("after a restart, at closes_at_ms: %v", ev)
	}

	// Due while the server was down: closed as it starts, with its message_updated.
	down := newPoll(5 * time.Minute)
	seq := c.s.Engine.Seq()
	c.s.RestartAfter(func() { c.clock.Advance(time.Hour) })
	bob = c.s.Client(bob.Token)
	if got := listedMessage(t, bob, down); !got.GetPoll().GetClosed() {
		t.Fatalf("a poll due while the server was down is open after the start")
	}
	replay := bob.Subscribe(t, seq)
	if ev := nextUpdate(t, replay); ev.GetId() != down.GetId() || !ev.GetPoll().GetClosed() {
		t.Fatalf("the close's event: %v", ev)
	}
}

// TestPollEventsStayBounded: the log keeps a vote's message_updated without the voters, and a
// replay shows the poll as it is now: every replayed event of the poll carries its current
// votes, whatever it carried when it was sent.
func TestPollEventsStayBounded(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general := c.channel("general")
	var voters []*webtest.Client
	for i := range 5 {
		voters = append(voters, c.join(fmt.Sprintf("voter-%d", i)))
	}
	seq := c.s.Engine.Seq()
	m := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Poll: &svcv1.PollInput{Question: "Q", Options: []string{"a", "b"}, Multiple: true}})
	var want []string
	for _, v := range voters {
		if _, err := votePoll(v, m.GetId(), "0", "1"); err != nil {
			t.Fatal(err)
		}
		want = append(want, v.Member.GetId())
	}
	replay := c.owner.Subscribe(t, seq)
	for i := range 1 + len(voters) {
		got := eventMessage(replay.Next())
		for _, o := range got.GetPoll().GetOptions() {
			if !slices.Equal(o.GetVoterIds(), want) {
				t.Fatalf("replayed event %d: option %s voters %v, want the current %v", i, o.GetId(), o.GetVoterIds(), want)
			}
		}
	}
	// Live, each vote's event carries the votes as they were then.
	st := c.owner.Subscribe(t, c.s.Engine.Seq())
	if _, err := votePoll(voters[0], m.GetId()); err != nil {
		t.Fatal(err)
	}
	if got := nextUpdate(t, st).GetPoll().GetOptions()[0].GetVoterIds(); !slices.Equal(got, want[1:]) {
		t.Fatalf("live: %v, want %v", got, want[1:])
	}
	// The log itself holds no voter.
	logged := 0
	c.s.Seed(func(b *store.Batch) error {
		return b.Events(0, math.MaxInt64, func(le *storepb.LoggedEvent) (bool, error) {
			for _, o := range eventMessage(le.GetEvent()).GetPoll().GetOptions() {
				logged += len(o.GetVoterIds())
			}
			return true, nil
		})
	})
	if logged != 0 {
		t.Fatalf("the event log holds %d voter ids", logged)
	}
}
