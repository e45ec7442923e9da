package web_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// recorder reports every hook it hears in the channel log.
func recorder(log string) string {
	return fmt.Sprintf(`const LOG = %q;
const say = t => chat.sendMessage({channelId: LOG, text: t});
chat.on('message', m => { if (m.channelId !== LOG) say('message ' + m.text); });
chat.on('messageUpdated', m => say('updated ' + m.text + ' replies=' + (m.replyCount || 0)));
chat.on('messageDeleted', m => say('deleted ' + m.id + ' deleted=' + m.deleted));
chat.on('memberJoined', m => say('joined ' + m.username + ' ' + m.kind));
chat.on('memberLeft', id => say('left ' + id));
chat.on('reaction', r => say('reaction ' + r.emoji + ' by ' + r.memberId + (r.removed ? ' removed' : '') + ' on ' + r.message.text));
`, log)
}

// Every hook but joinRequest, with the objects in their JSON form, in log order; a plugin sees
// only what its bot sees.
func TestPluginHooks(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	clock.Advance(time.Minute)
	member := s.Join("member")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	logCh := mustChannel(t, owner, "log", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	p := mustInstall(t, owner, "recorder", recorder(logCh.GetId()))
	st := owner.Subscribe(t, s.Engine.Seq())
	next := func() string {
		t.Helper()
		for {
			m := st.Next().GetMessageCreated()
			if m != nil && m.GetChannelId() == logCh.GetId() {
				return m.GetText()
			}
		}
	}
	expect := func(want string) {
		t.Helper()
		if got := next(); got != want {
			t.Fatalf("the plugin said %q, want %q", got, want)
		}
	}

	m := mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "hello"})
	expect("message hello")
	if _, err := member.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: "hello again"})); err != nil {
		t.Fatal(err)
	}
	expect("updated hello again replies=0")
	clock.Advance(time.Second)
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "a reply", ThreadRootId: m.GetId()})
	expect("message a reply")
	expect("updated hello again replies=1")
	for _, remove := range []bool{false, true} {
		if _, err := owner.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: "👍", Remove: remove})); err != nil {
			t.Fatal(err)
		}
	}
	expect("reaction 👍 by " + owner.Member.GetId() + " on hello again")
	expect("reaction 👍 by " + owner.Member.GetId() + " removed on hello again")
	if _, err := member.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()})); err != nil {
		t.Fatal(err)
	}
	expect("deleted " + m.GetId() + " deleted=true")
	clock.Advance(time.Minute)
	carol := s.Join("carol")
	expect("joined carol MEMBER_KIND_HUMAN")
	if _, err := carol.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	expect("left " + carol.Member.GetId())

	// A private channel and a DM are heard only once the bot is in them.
	clock.Advance(time.Second)
	secret := mustChannel(t, owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "unheard"})
	dm := openDM(t, s, owner, member)
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "unheard dm"})
	clock.Advance(time.Second)
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "marker"})
	expect("message marker")
	if _, err := owner.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: []string{p.GetBotId()}})); err != nil {
		t.Fatal(err)
	}
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "heard"})
	expect("message heard")
	res, err := owner.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: []string{p.GetBotId()}}))
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: res.Msg.GetChannel().GetId(), Text: "heard dm"})
	expect("message heard dm")
	if got := listed(t, owner, "recorder"); got.GetError() != "" || !got.GetRunning() {
		t.Fatalf("after the hooks the recorder is %v", got)
	}
}

// The read-only views, as the bot sees the community.
func TestPluginViews(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustChannel(t, owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	mustInstall(t, owner, "views", fmt.Sprintf(`
chat.on('message', m => {
  const say = t => chat.sendMessage({channelId: m.channelId, text: t});
  if (m.text === '!members') say(chat.listMembers().map(x => x.username + ':' + x.role).join(','));
  if (m.text === '!channels') say(chat.listChannels().map(c => c.name + ':' + c.kind).join(','));
  if (m.text === '!me') { const me = chat.getMember(m.authorId); say(me.username + ' ' + me.id + ' ' + (chat.getMember('nobody') === null)); }
  if (m.text === '!owner') say(chat.getMember(%q).displayName);
});`, owner.Member.GetId()))
	st := owner.Subscribe(t, s.Engine.Seq())
	ask := asker(t, nil, owner, st, general.GetId())
	if got := ask("!members"); got != "owner:MEMBER_ROLE_OWNER,views:MEMBER_ROLE_MEMBER" {
		t.Fatalf("listMembers: %q", got)
	}
	if got := ask("!channels"); got != "general:CHANNEL_KIND_TEXT" {
		t.Fatalf("listChannels: %q", got)
	}
	if got := ask("!me"); got != "owner "+owner.Member.GetId()+" true" {
		t.Fatalf("getMember: %q", got)
	}
}

// A join gate: the plugin's question is listed after the community's own, its hook gets the
// answers to its question only, and a refusal is permission_denied with the plugin's reason.
// Not in parallel: a hook's time limit is real time, and beside other tests the gate's own hook
// could run past it (and be passed over, letting people in).
func TestPluginJoinGate(t *testing.T) {
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetJoinQuestions: true, JoinQuestions: []string{"Who invited you?"}})); err != nil {
		t.Fatal(err)
	}
	mustInstall(t, owner, "gate", `
chat.setJoinQuestions(['What is the password?']);
chat.on('joinRequest', r => {
  if (r.answers.length !== 1 || r.login.sub === '' || !r.login.iss) return {allow: false, reason: 'bad request ' + JSON.stringify(r)};
  if (r.answers[0] !== 'swordfish') return {allow: false, reason: 'wrong password, ' + r.displayName};
});`)
	info, err := owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil || !slices.Equal(info.Msg.GetJoinQuestions(), []string{"Who invited you?", "What is the password?"}) {
		t.Fatalf("join_questions = %v, %v", info.Msg.GetJoinQuestions(), err)
	}
	try := func(sub string, answers ...string) error {
		clock.Advance(6 * time.Second)
		c := s.Client(s.Token(sub))
		_, err := c.Server.Join(ctx, req(&svcv1.JoinRequest{DisplayName: "Dave", Answers: answers}))
		return err
	}
	wantCode(t, "no answers", try("dave"), connect.CodeInvalidArgument, "answers has 0 answers; the community asks 2 questions")
	wantCode(t, "one answer", try("dave", "Ann"), connect.CodeInvalidArgument, "answers has 1 answer; the community asks 2 questions")
	wantCode(t, "the wrong password", try("dave", "Ann", "fish"), connect.CodePermissionDenied, "wrong password, Dave")
	wantOK(t, "the right password", try("dave", "Ann", "swordfish"))
	// A member joining again is not asked.
	wantOK(t, "Join again", try("dave"))

	// A hook that throws, and one that runs past its time, let people in and say why.
	mustInstall(t, owner, "thrower", `chat.on('joinRequest', r => { throw new Error('gate is broken') });`)
	mustInstall(t, owner, "sleeper", `chat.on('joinRequest', r => { for (;;) {} });`)
	wantOK(t, "past broken hooks", try("erin", "Ann", "swordfish"))
	erredWith(t, owner, "thrower", "hook joinRequest: Error: gate is broken")
	stoppedWith(t, owner, "sleeper", "hook joinRequest ran longer than 500ms")
	// The gate still refuses.
	wantCode(t, "the gate after the others", try("frank", "Ann", "nope"), connect.CodePermissionDenied, "wrong password")

	// Disabled, the gate's question and hook are gone.
	if _, err := owner.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "gate", Enabled: false})); err != nil {
		t.Fatal(err)
	}
	info, err = owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil || !slices.Equal(info.Msg.GetJoinQuestions(), []string{"Who invited you?"}) {
		t.Fatalf("join_questions after disabling = %v, %v", info.Msg.GetJoinQuestions(), err)
	}
	wantOK(t, "with the gate disabled", try("frank", "Ann"))

	// setJoinQuestions has the limits of join_questions.
	_, err = owner.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "asker", Source: `chat.setJoinQuestions(['q1','q2','q3','q4','q5','q6','q7','q8','q9','q10','q11'])`}))
	wantCode(t, "11 questions", err, connect.CodeInvalidArgument, "chat.setJoinQuestions has 11 questions; the limit is 10")
	_, err = owner.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "asker", Source: `chat.setJoinQuestions(['x'.repeat(201)])`}))
	wantCode(t, "a long question", err, connect.CodeInvalidArgument, "each of chat.setJoinQuestions is 201 characters; the limit is 200")
}

// chat.store keeps JSON per plugin across restarts, within 1 MB; DeletePlugin deletes it.
func TestPluginStore(t *testing.T) {
	// Not in parallel: a plugin's limits are real time and the process's heap growth while its
	// hook runs, which tests beside it would spend (a local CI run once saw one of its hooks go
	// without an answer beside the parallel tests).
	clock := webtest.NewClock()
	// A hook that stores 700 KB waits for its commit, within the 500 ms a hook may take; on a
	// machine loaded many times over (the race detector, the disk's syncs) it went past that.
	// This test is about the store, so its hooks get 5 s.
	s := webtest.StartConfig(t, func(c *web.Config) { c.Plugins.HookLimit = 5 * time.Second }, webtest.WithClock(clock))
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	src := `
chat.on('message', m => {
  const say = t => chat.sendMessage({channelId: m.channelId, text: t});
  const [cmd, key, value] = m.text.split(' ');
  try {
    if (cmd === '!set') { chat.store.set(key, JSON.parse(value)); say('ok'); }
    if (cmd === '!get') say('got ' + JSON.stringify(chat.store.get(key)));
    if (cmd === '!del') { chat.store.delete(key); say('deleted'); }
    if (cmd === '!fill') { chat.store.set(key, 'x'.repeat(Number(value))); say('filled'); }
  } catch (e) { say('error ' + e.message); }
});`
	mustInstall(t, owner, "keeper", src)
	st := owner.Subscribe(t, s.Engine.Seq())
	ask := asker(t, clock, owner, st, general.GetId())
	for _, c := range []struct{ q, want string }{
		{`!set a {"n":1,"list":[true,null,"s"]}`, "ok"},
		{`!get a`, `got {"n":1,"list":[true,null,"s"]}`},
		{`!get missing`, "got undefined"},
		{`!set a 2`, "ok"},
		{`!get a`, "got 2"},
		{`!del a`, "deleted"},
		{`!get a`, "got undefined"},
		{`!set kept "still"`, "ok"},
		{`!fill big1 600000`, "filled"},
		{`!fill big2 600000`, `error chat.store.set: storing "big2" would make the plugin's values 1,200,`},
		{`!fill big1 700000`, "filled"},
		// 1 MB is 1,000,000 bytes, keys and values together ("kept" and big1 take 700,017 with their keys and quotes).
		{`!fill big2 299977`, "filled"},
		{`!del big2`, "deleted"},
		{`!fill big2 299978`, `error chat.store.set: storing "big2" would make the plugin's values 1,000,001 bytes; the limit is 1,000,000`},
		{`!fill ` + strings.Repeat("k", 257) + ` 1`, "error chat.store.set: key is 257 bytes; the limit is 256"},
	} {
		if got := ask(c.q); !strings.HasPrefix(got, c.want) {
			t.Fatalf("%s: %q, want %q", c.q, got, c.want)
		}
	}
	s.Restart()
	ask = asker(t, clock, owner, owner.Subscribe(t, s.Engine.Seq()), general.GetId())
	if got := ask("!get kept"); got != `got "still"` {
		t.Fatalf("after a restart: %q", got)
	}
	// DeletePlugin deletes what it stored: the same name starts empty.
	if _, err := owner.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "keeper"})); err != nil {
		t.Fatal(err)
	}
	mustInstall(t, owner, "keeper", src)
	ask = asker(t, clock, owner, owner.Subscribe(t, s.Engine.Seq()), general.GetId())
	if got := ask("!get kept"); got != "got undefined" {
		t.Fatalf("after delete and reinstall: %q", got)
	}
}

// chat.every runs on the server's clock, at least every 60 s; console lines go to the server
// log tagged with the plugin.
func TestPluginTimersAndConsole(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	logs := &logBuffer{}
	s := webtest.Start(t, webtest.WithClock(clock), withLog(logs))
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustInstall(t, owner, "ticker", fmt.Sprintf(`
let n = 0;
console.log('loaded', {every: 60});
chat.every(60, () => chat.sendMessage({channelId: %q, text: 'tick ' + n++}));`, general.GetId()))
	waitLog(t, logs, "plugin console", "plugin=ticker", `line="loaded {\"every\":60}"`)
	st := owner.Subscribe(t, s.Engine.Seq())
	for i := range 3 {
		clock.Advance(60 * time.Second)
		if got := nextText(t, st); got != fmt.Sprintf("tick %d", i) {
			t.Fatalf("tick %d: %q", i, got)
		}
	}
	_, err := owner.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "fast", Source: `chat.every(30, () => {})`}))
	wantCode(t, "every 30 s", err, connect.CodeInvalidArgument, "chat.every: seconds must be at least 60; got 30")
	_, err = owner.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "many", Source: `for (let i = 0; i < 17; i++) chat.every(60, () => {})`}))
	wantCode(t, "17 timers", err, connect.CodeInvalidArgument, "chat.every: a plugin has at most 16 timers")
}
