package web_test

import (
	"slices"
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// convo replies, pins, runs a poll and votes as its bot, and says what it sees of replies,
// pins, group mentions and polls in the messages its hooks get.
const convo = `chat.on('message', m => {
  const say = (text, extra) => chat.sendMessage(Object.assign({channelId: m.channelId, text}, extra || {}));
  if (m.replyTo) say('reply to ' + m.replyTo.authorId + ': ' + (m.replyTo.text || ''));
  if (m.mentionsEveryone) say('everyone');
  if (m.poll) {
    const voted = chat.vote(m.id, ['1']);
    say('voted ' + voted.poll.options.map(o => o.text + '=' + (o.voterIds || []).length).join(' '));
  }
  if (m.text === '!reply') say('answered', {replyToId: m.id});
  if (m.text === '!pin') {
    try {
      const pinned = chat.pin(m.id);
      say('pinned ' + (pinned.pinnedAtMs !== undefined) + ' ' + chat.listPins(m.channelId).length);
    } catch (e) { say('refused ' + e.message) }
  }
  if (m.text === '!unpin') say('unpinned ' + (chat.unpin(m.replyTo.id).pinnedAtMs === undefined));
  if (m.text === '!poll') {
    const p = say('', {poll: {question: 'Pizza?', options: ['yes', 'no']}});
    chat.vote(p.id, ['0']);
    say('closed ' + JSON.stringify(chat.closePoll(p.id).poll));
  }
  if (m.text === '!badvote') {
    try { chat.vote(m.replyTo.id, '0') } catch (e) { say('refused ' + e.message) }
  }
});
// Only the member's pin of "!reply" is told: when the plugin hears its own pin of "!pin" depends
// on how its hooks' turns fall, and the test would race it.
chat.on('messageUpdated', m => {
  if (m.pinnedAtMs && m.text === '!reply') chat.sendMessage({channelId: m.channelId, text: 'saw a pin by ' + m.pinnedBy});
});`

// TestPluginConversation: a plugin's messages carry reply_to, pins, group mentions and polls;
// it replies (replyToId), pins, lists pins, votes and closes polls as its bot, under the rules
// of its rank.
func TestPluginConversation(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	p := mustInstall(t, owner, "convo", convo)
	bot := p.GetBotId()
	st := owner.Subscribe(t, s.Engine.Seq())
	send := func(r *svcv1.SendMessageRequest) *svcv1.Message {
		t.Helper()
		r.ChannelId = general.GetId()
		m := mustSend(t, owner, r)
		st.Until(func(ev *svcv1.Event) bool { return ev.GetMessageCreated().GetId() == m.GetId() })
		return m
	}
	next := func(want string) *svcv1.Message {
		t.Helper()
		for {
			ev := st.Next()
			m := ev.GetMessageCreated()
			if m == nil || m.GetAuthorId() != bot {
				continue
			}
			if m.GetText() != want {
				t.Fatalf("the plugin said %q, want %q", m.GetText(), want)
			}
			return m
		}
	}

	// A reply, both ways.
	question := send(&svcv1.SendMessageRequest{Text: "!reply"})
	if answer := next("answered"); answer.GetReplyTo().GetId() != question.GetId() || answer.GetReplyTo().GetText() != "!reply" {
		t.Fatalf("the plugin's reply: reply_to %v", answer.GetReplyTo())
	}
	send(&svcv1.SendMessageRequest{Text: "a reply for the plugin", ReplyToId: question.GetId()})
	next("reply to " + owner.Member.GetId() + ": !reply")

	// Group mentions.
	send(&svcv1.SendMessageRequest{Text: "<!everyone> hi"})
	next("everyone")

	// Pins need the moderator rank in a TEXT channel.
	send(&svcv1.SendMessageRequest{Text: "!pin"})
	next("refused chat.pin: pinning messages outside DMs needs the moderator rank or higher")
	if _, err := owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: bot, Role: svcv1.MemberRole_MEMBER_ROLE_MODERATOR})); err != nil {
		t.Fatal(err)
	}
	pinMe := send(&svcv1.SendMessageRequest{Text: "!pin"})
	next("pinned true 1")
	if got := pinnedIDs(t, owner, general.GetId()); !slices.Equal(got, ids(pinMe)) {
		t.Fatalf("the plugin's pin: ListPins %v", got)
	}
	send(&svcv1.SendMessageRequest{Text: "!unpin", ReplyToId: pinMe.GetId()})
	next("reply to " + owner.Member.GetId() + ": !pin")
	next("unpinned true")
	// The plugin hears a member's pin.
	if _, err := owner.Chat.PinMessage(ctx, req(&svcv1.PinMessageRequest{MessageId: question.GetId()})); err != nil {
		t.Fatal(err)
	}
	next("saw a pin by " + owner.Member.GetId())

	// Polls: the plugin runs one, votes in it and closes it; it votes in a member's.
	send(&svcv1.SendMessageRequest{Text: "!poll"})
	next("")
	next(`closed {"question":"Pizza?","options":[{"id":"0","text":"yes","voterIds":["` + bot + `"]},{"id":"1","text":"no"}],"closed":true}`)
	poll := send(&svcv1.SendMessageRequest{Poll: &svcv1.PollInput{Question: "Tea?", Options: []string{"yes", "no"}}})
	next("voted yes=0 no=1")
	if got := listedMessage(t, owner, poll).GetPoll().GetOptions()[1].GetVoterIds(); !slices.Equal(got, []string{bot}) {
		t.Fatalf("the plugin's vote: %v", got)
	}
	send(&svcv1.SendMessageRequest{Text: "!badvote", ReplyToId: poll.GetId()})
	next("reply to " + owner.Member.GetId() + ": ")
	next("refused chat.vote(messageId, optionIds): optionIds must be a list of strings")
}
