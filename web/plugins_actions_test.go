package web_test

import (
	"fmt"
	"slices"
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// actor answers commands with every action a plugin has besides sendMessage: it edits and
// deletes its own messages, reacts to the member's, and is refused what a bot of the member rank
// may not do (edit or delete another's message), with the server's reason thrown as an Error.
// "!globals" reports which of the usual ways out of a script (modules, network, processes,
// timers of the host) exist in its runtime: none may. Each command makes a few commits only, so
// that a busy machine cannot use up a hook's 500 ms.
const actor = `let target;
chat.on('message', m => {
  const say = t => chat.sendMessage({channelId: m.channelId, text: t});
  if (m.text === '!target') { target = m.id; return; }
  if (m.text === '!edit') {
    const draft = say('draft');
    const edited = chat.editMessage(draft.id, 'final');
    say('edited ' + (edited.id === draft.id) + ' ' + edited.text + ' ' + (edited.editedAtMs !== '0'));
  }
  if (m.text === '!react') {
    const reacted = chat.react(target, '👍');
    say('reacted ' + reacted.reactions.map(r => r.emoji + ':' + r.memberIds.length).join());
  }
  if (m.text === '!delete') {
    const temp = say('temporary');
    say('deleted ' + chat.deleteMessage(temp.id));
  }
  if (m.text === '!unreact') chat.react(target, '👍', true);
  if (m.text === '!refused') {
    try { chat.editMessage(target, 'hijacked') } catch (e) { say('refused ' + e.message) }
    try { chat.deleteMessage(target) } catch (e) { say('refused ' + e.message) }
    try { chat.react(target, 'not an emoji') } catch (e) { say('refused ' + e.message) }
  }
  if (m.text === '!globals') {
    say('globals ' + ['require', 'module', 'process', 'fetch', 'XMLHttpRequest', 'WebSocket', 'setTimeout', 'setInterval', 'Deno', 'Bun']
      .filter(n => typeof globalThis[n] !== 'undefined').join() + '.');
  }
});`

// A plugin's react, editMessage and deleteMessage act as its bot, under the rules of any bot
// of its rank, and what they do reaches the members like any member's action.
func TestPluginActionsAsItsBot(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	member := s.Join("member")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	p := mustInstall(t, owner, "actor", actor)
	st := member.Subscribe(t, s.Engine.Seq())

	m := mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!target"})
	for _, cmd := range []string{"!edit", "!react", "!delete", "!unreact", "!refused", "!globals"} {
		mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: cmd})
	}
	bot := p.GetBotId()
	type seen struct{ kind, author, text, reactions string }
	var got []seen
	for len(got) == 0 || got[len(got)-1].text != "globals ." {
		ev := st.Next()
		var msg *svcv1.Message
		switch {
		case ev.GetMessageCreated() != nil:
			msg = ev.GetMessageCreated()
		case ev.GetMessageUpdated() != nil:
			msg = ev.GetMessageUpdated()
		case ev.GetMessageDeleted() != nil:
			msg = ev.GetMessageDeleted()
		default:
			t.Fatalf("the member got %v", ev)
		}
		if msg.GetAuthorId() == owner.Member.GetId() {
			continue // the commands
		}
		rs := ""
		for _, r := range msg.GetReactions() {
			rs += fmt.Sprintf("%s%v", r.GetEmoji(), r.GetMemberIds())
		}
		who := "member"
		if msg.GetAuthorId() == bot {
			who = "bot"
		}
		got = append(got, seen{kindOf(ev), who, msg.GetText(), rs})
		if len(got) > 40 {
			t.Fatalf("no end in sight: %v", got)
		}
	}
	want := []seen{
		{"message_created", "member", "!target", ""},
		{"message_created", "bot", "draft", ""},
		{"message_updated", "bot", "final", ""},
		{"message_created", "bot", "edited true final true", ""},
		{"message_updated", "member", "!target", "👍[" + bot + "]"},
		{"message_created", "bot", "reacted 👍:1", ""},
		{"message_created", "bot", "temporary", ""},
		{"message_deleted", "bot", "", ""},
		{"message_created", "bot", "deleted undefined", ""},
		{"message_updated", "member", "!target", ""},
		{"message_created", "bot", "refused chat.editMessage: only the author can edit a message", ""},
		{"message_created", "bot", "refused chat.deleteMessage: only the author or a moderator can delete a message", ""},
		{"message_created", "bot", `refused chat.react: emoji "not an emoji" is neither a unicode emoji nor a :shortcode:`, ""},
		{"message_created", "bot", "globals .", ""},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the member saw\n%v\nwant\n%v", got, want)
	}

	// What was refused changed nothing: the member's message is as written, and the channel
	// holds the bot's messages, the deleted one as a deleted row (the owner's commands aside).
	msgs, err := member.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, x := range msgs.Msg.GetMessages() {
		if x.GetId() == m.GetId() && (x.GetText() != "!target" || x.GetDeleted() || x.GetEditedAtMs() != 0 || len(x.GetReactions()) != 0) {
			t.Fatalf("the member's message is now %v", x)
		}
		if x.GetAuthorId() != owner.Member.GetId() {
			texts = append(texts, x.GetText())
		}
	}
	if len(texts) != 10 || texts[0] != "!target" || texts[1] != "final" || texts[4] != "" || texts[9] != "globals ." {
		t.Fatalf("the channel holds %q", texts)
	}
	if got := listed(t, owner, "actor"); got.GetError() != "" || !got.GetRunning() {
		t.Fatalf("after its actions the plugin is %v", got)
	}
}
