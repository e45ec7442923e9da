package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// echo answers "!echo x" with "x", so that tests can see which version of a plugin runs.
func echo(prefix string) string {
	return fmt.Sprintf(`chat.on('message', m => {
  if (m.text.startsWith('!echo ')) chat.sendMessage({channelId: m.channelId, text: %q + m.text.slice(6)});
});`, prefix)
}

// A plugin's whole life: install (file written, bot made, plugins_changed to admins only),
// replace, a failed replacement that changes nothing, disable, enable, delete.
func TestPluginLifecycle(t *testing.T) {
	// Not in parallel: a plugin's limits are real time and the process's memory, which other
	// tests beside it would spend.
	s := webtest.Start(t)
	owner := s.Join("owner")
	admin := s.Join("admin")
	member := s.Join("member")
	s.SeedRanks(map[*webtest.Client]svcv1.MemberRole{admin: svcv1.MemberRole_MEMBER_ROLE_ADMIN})
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	seq := s.Engine.Seq()
	adminSees, memberSees := admin.Subscribe(t, seq), member.Subscribe(t, seq)

	// Install, with the trailing .js dropped from the name.
	p := mustInstall(t, admin, "echo.js", echo("v1:"))
	if p.GetName() != "echo" {
		t.Fatalf("installed as %q", p.GetName())
	}
	if got := fileText(t, pluginPath(s, "echo.js")); got != echo("v1:") {
		t.Fatalf("echo.js holds %q", got)
	}
	bots, err := member.Bot.ListBots(ctx, req(&svcv1.ListBotsRequest{}))
	if err != nil || len(bots.Msg.GetBots()) != 1 || bots.Msg.GetBots()[0].GetId() != p.GetBotId() || bots.Msg.GetBots()[0].GetUsername() != "echo" {
		t.Fatalf("ListBots = %v, %v; want the plugin's bot", bots, err)
	}
	// Admins get member_joined of the bot and plugins_changed; members only member_joined.
	want := []string{"member_joined", "plugins_changed"}
	if got := kinds(adminSees, 2); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the admin got %v, want %v", got, want)
	}
	mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!echo hi"})
	if got := texts(t, memberSees, 2); strings.Join(got, "|") != "!echo hi|v1:hi" {
		t.Fatalf("member saw %v", got)
	}

	// Replace: same bot, new behaviour, plugins_changed again.
	p2 := mustInstall(t, owner, "echo", echo("v2:"))
	if p2.GetBotId() != p.GetBotId() {
		t.Fatalf("the replacement has bot %s, want %s", p2.GetBotId(), p.GetBotId())
	}
	mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!echo again"})
	if got := texts(t, memberSees, 2); got[1] != "v2:again" {
		t.Fatalf("after the replacement the member saw %v", got)
	}

	// Replacements that fail change nothing: v2 keeps running, its file stays.
	for _, bad := range []struct{ src, want string }{
		{"chat.on('message', m => {", "the plugin did not load: SyntaxError"},
		{"throw new Error('not today')", "the plugin did not load: Error: not today"},
		{"while (true) {}", "the plugin did not load: the top level ran longer than 1s"},
		{"chat.sendMessage({channelId: 'x', text: 'hi'})", "chat.sendMessage is not available at the top level"},
		{"chat.store.set('k', 1)", "chat.store.set is not available at the top level"},
		{"chat.every(59, () => {})", "chat.every: seconds must be at least 60; got 59"},
		{"chat.on('mesage', () => {})", `chat.on: "mesage" is not a hook`},
		{"var big = 1n", "BigInt literals are not available to plugins"},
	} {
		_, err := owner.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "echo", Source: bad.src}))
		wantCode(t, "install "+bad.src, err, connect.CodeInvalidArgument, bad.want)
	}
	if got := fileText(t, pluginPath(s, "echo.js")); got != echo("v2:") {
		t.Fatalf("after failed replacements echo.js holds %q", got)
	}
	mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!echo still"})
	if got := texts(t, memberSees, 2); got[1] != "v2:still" {
		t.Fatalf("after failed replacements the member saw %v", got)
	}
	// None of them announced anything.
	want = []string{"message_created", "message_created", "plugins_changed", "message_created", "message_created", "message_created", "message_created"}
	if got := kinds(adminSees, len(want)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the admin got %v, want %v", got, want)
	}

	// Disable: stopped, file renamed, no hooks.
	res, err := admin.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "echo", Enabled: false}))
	if err != nil || res.Msg.GetPlugin().GetEnabled() || res.Msg.GetPlugin().GetRunning() {
		t.Fatalf("disable: %v %v", res, err)
	}
	if fileText(t, pluginPath(s, "echo.js")) != "<absent>" || fileText(t, pluginPath(s, "echo.js.disabled")) != echo("v2:") {
		t.Fatal("disabling did not rename echo.js to echo.js.disabled")
	}
	mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!echo quiet"})
	mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "marker"})
	if got := texts(t, memberSees, 2); strings.Join(got, "|") != "!echo quiet|marker" {
		t.Fatalf("a disabled plugin answered: %v", got)
	}
	// Disabling twice changes nothing.
	if _, err := admin.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "echo", Enabled: false})); err != nil {
		t.Fatal(err)
	}

	// Enable: running again, file back.
	res, err = admin.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "echo", Enabled: true}))
	if err != nil || !res.Msg.GetPlugin().GetEnabled() || !res.Msg.GetPlugin().GetRunning() || res.Msg.GetPlugin().GetBotId() != p.GetBotId() {
		t.Fatalf("enable: %v %v", res, err)
	}
	if fileText(t, pluginPath(s, "echo.js")) != echo("v2:") || fileText(t, pluginPath(s, "echo.js.disabled")) != "<absent>" {
		t.Fatal("enabling did not rename echo.js.disabled to echo.js")
	}
	mustSend(t, member, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!echo back"})
	if got := texts(t, memberSees, 2); got[1] != "v2:back" {
		t.Fatalf("after enabling the member saw %v", got)
	}

	// Delete: files and bot gone (member_left), the bot's messages stay.
	if _, err := admin.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "echo"})); err != nil {
		t.Fatal(err)
	}
	if fileText(t, pluginPath(s, "echo.js")) != "<absent>" || listed(t, admin, "echo") != nil {
		t.Fatal("DeletePlugin left the plugin")
	}
	for ev := memberSees.Next(); ev.GetMemberLeft() != p.GetBotId(); ev = memberSees.Next() {
	}
	msgs, err := member.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	byBot := 0
	for _, m := range msgs.Msg.GetMessages() {
		if m.GetAuthorId() == p.GetBotId() {
			byBot++
		}
	}
	if byBot != 4 {
		t.Fatalf("the deleted plugin's bot has %d messages left, want 4", byBot)
	}
	_, err = admin.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "echo"}))
	wantCode(t, "delete twice", err, connect.CodeNotFound, `there is no plugin named "echo"`)
	_, err = admin.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "echo", Enabled: true}))
	wantCode(t, "enable a deleted plugin", err, connect.CodeNotFound, `there is no plugin named "echo"`)
	// The name is free again: a new install makes a new bot.
	p3 := mustInstall(t, admin, "echo", echo("v3:"))
	if p3.GetBotId() == p.GetBotId() {
		t.Fatal("a reinstalled plugin got the deleted bot back")
	}

	// Over the whole life, replayed: plugins_changed reached the admins for the install, the
	// replacement, disabling, enabling, deleting and the reinstall (not for the failed
	// replacements, nor the second disable), and never a member.
	streams := []*webtest.Stream{admin.Subscribe(t, seq), member.Subscribe(t, seq)}
	bio := "end of the plugin's life"
	if _, err := owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); err != nil {
		t.Fatal(err)
	}
	changes := func(st *webtest.Stream) int {
		n := 0
		for _, ev := range st.Until(func(ev *svcv1.Event) bool { return ev.GetMemberUpdated().GetBio() == bio }) {
			if ev.GetPluginsChanged() {
				n++
			}
		}
		return n
	}
	if a, m := changes(streams[0]), changes(streams[1]); a != 6 || m != 0 {
		t.Fatalf("plugins_changed reached the admin %d times (want 6) and the member %d times (want 0)", a, m)
	}
}

// kinds names the next n logged events of a stream by kind.
func kinds(st *webtest.Stream, n int) []string {
	var out []string
	for range n {
		out = append(out, kindOf(st.Next()))
	}
	return out
}

func kindOf(ev *svcv1.Event) string {
	switch ev.GetKind().(type) {
	case *svcv1.Event_MemberJoined:
		return "member_joined"
	case *svcv1.Event_MemberLeft:
		return "member_left"
	case *svcv1.Event_PluginsChanged:
		return "plugins_changed"
	case *svcv1.Event_MessageCreated:
		return "message_created"
	case *svcv1.Event_MessageUpdated:
		return "message_updated"
	case *svcv1.Event_MessageDeleted:
		return "message_deleted"
	}
	return fmt.Sprintf("%T", ev.GetKind())
}

// Who may manage plugins, and what names and sources are refused.
func TestPluginCallRules(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	for _, who := range []*webtest.Client{c.member, c.mod, c.bot} {
		_, err := who.Bot.ListPlugins(ctx, req(&svcv1.ListPluginsRequest{}))
		wantCode(t, "ListPlugins", err, connect.CodePermissionDenied, "admin")
		_, err = who.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "x1", Source: "1"}))
		wantCode(t, "InstallPlugin", err, connect.CodePermissionDenied, "admin")
		_, err = who.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "x1"}))
		wantCode(t, "SetPluginEnabled", err, connect.CodePermissionDenied, "admin")
		_, err = who.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "x1"}))
		wantCode(t, "DeletePlugin", err, connect.CodePermissionDenied, "admin")
	}
	for _, name := range []string{"", "x", "X1", "two words", strings.Repeat("a", 33), "../etc", "~tmp-x"} {
		_, err := c.admin.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: name, Source: "1"}))
		wantCode(t, "plugin name "+name, err, connect.CodeInvalidArgument, "name must be 2 to 32 characters of a-z, 0-9, underscore, dot and hyphen")
		// The calls that name an installed plugin refuse a name no plugin can have alike.
		_, err = c.admin.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: name, Enabled: true}))
		wantCode(t, "SetPluginEnabled of "+name, err, connect.CodeInvalidArgument, "name must be 2 to 32 characters of a-z, 0-9, underscore, dot and hyphen")
		_, err = c.admin.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: name}))
		wantCode(t, "DeletePlugin of "+name, err, connect.CodeInvalidArgument, "name must be 2 to 32 characters of a-z, 0-9, underscore, dot and hyphen")
	}
	// The name is its bot's username: one a member has is taken.
	_, err := c.admin.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "member2", Source: "1"}))
	wantCode(t, "a member's username", err, connect.CodeAlreadyExists, `the username "member2" is taken`)
	_, err = c.admin.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "bot", Source: "1"}))
	wantCode(t, "a bot's username", err, connect.CodeAlreadyExists, `the username "bot" is taken`)
	// Source: 256 KB at most, a KB being 1,000 bytes as for emoji and uploads.
	big := "//" + strings.Repeat("x", 256_000-2)
	mustInstall(t, c.admin, "biggest", big)
	_, err = c.admin.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "bigger", Source: big + "x"}))
	wantCode(t, "a source over 256 KB", err, connect.CodeInvalidArgument, "source is 256,001 bytes; the limit is 256,000 (256 KB)")
	// A plugin's bot is deleted with the plugin, never with DeleteBot, and has no token.
	p := listed(t, c.admin, "biggest")
	_, err = c.owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: p.GetBotId()}))
	wantCode(t, "DeleteBot of a plugin's bot", err, connect.CodeFailedPrecondition, `belongs to the plugin "biggest": delete it with DeletePlugin`)
	_, err = c.owner.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: p.GetBotId()}))
	wantCode(t, "RotateBotToken of a plugin's bot", err, connect.CodeFailedPrecondition, "has no token")
}

// Plugins in the folder are loaded at start: enabled ones run (with the bot they had), disabled
// ones are listed, broken ones are listed with why.
func TestPluginsLoadAtStart(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	first := mustInstall(t, owner, "echo", echo("kept:"))
	write := func(file, src string) {
		if err := os.WriteFile(pluginPath(s, file), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("dropped.js", echo("dropped:"))
	write("resting.js.disabled", echo("resting:"))
	write("broken.js", "chat.on('message', ")
	write("not-a-plugin.txt", "hello")
	write("Bad Name.js", echo("bad:"))
	s.Restart()

	res, err := owner.Bot.ListPlugins(ctx, req(&svcv1.ListPluginsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Msg.GetPlugins() {
		got = append(got, fmt.Sprintf("%s enabled=%v running=%v bot=%v error=%v", p.GetName(), p.GetEnabled(), p.GetRunning(), p.GetBotId() != "", p.GetError() != ""))
	}
	want := []string{
		"broken enabled=true running=false bot=false error=true",
		"dropped enabled=true running=true bot=true error=false",
		"echo enabled=true running=true bot=true error=false",
		"resting enabled=false running=false bot=false error=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the restart ListPlugins =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if e := listed(t, owner, "broken").GetError(); !strings.Contains(e, "SyntaxError") {
		t.Fatalf("broken's error is %q", e)
	}
	if listed(t, owner, "echo").GetBotId() != first.GetBotId() {
		t.Fatal("the restarted plugin has a new bot")
	}
	st := owner.Subscribe(t, s.Engine.Seq())
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!echo x"})
	got = texts(t, st, 3)
	if got[0] != "!echo x" || strings.Join(got[1:], " ") != "dropped:x kept:x" && strings.Join(got[1:], " ") != "kept:x dropped:x" {
		t.Fatalf("after the restart the plugins answered %v", got)
	}
}

// An install whose file cannot be written fails and changes nothing: the plugin is not listed,
// and the bot made for it on this first install is gone again (its username free).
func TestFailedInstallLeavesNoPluginAndNoBot(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	// A folder where the plugin's file goes: renaming the written file onto it fails.
	if err := os.MkdirAll(filepath.Join(pluginPath(s, "racer.js"), "in-the-way"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := owner.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "racer", Source: echo("racer:")}))
	wantCode(t, "an install whose file cannot be written", err, connect.CodeInternal, "could not be written")
	if p := listed(t, owner, "racer"); p != nil {
		t.Errorf("the failed install is listed: %v", p)
	}
	bots, err := owner.Bot.ListBots(ctx, req(&svcv1.ListBotsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bots.Msg.GetBots() {
		if b.GetUsername() == "racer" {
			t.Errorf("the failed install left its bot: %v", b)
		}
	}
	// Once the folder is out of the way the same install works.
	if err := os.RemoveAll(pluginPath(s, "racer.js")); err != nil {
		t.Fatal(err)
	}
	mustInstall(t, owner, "racer", echo("racer:"))
}

// A plugin whose file went away while its bot stayed (removed by hand, or a crash inside an
// earlier DeletePlugin) is not listed, and DeleteBot refuses its bot: DeletePlugin deletes the
// bot and the stored values, so that no bot is left that no call can delete.
func TestDeletePluginWithoutItsFileDeletesItsBot(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	p := mustInstall(t, owner, "gone", echo("gone:"))
	if err := s.Engine.PluginStoreSet("gone", "k", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(pluginPath(s, "gone.js")); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	if l := listed(t, owner, "gone"); l != nil {
		t.Fatalf("a plugin without its file is listed: %v", l)
	}
	_, err := owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: p.GetBotId()}))
	wantCode(t, "DeleteBot of the plugin's bot", err, connect.CodeFailedPrecondition, "delete it with DeletePlugin")
	if _, err := owner.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "gone"})); err != nil {
		t.Fatalf("DeletePlugin of a plugin whose file is gone: %v", err)
	}
	bots, err := owner.Bot.ListBots(ctx, req(&svcv1.ListBotsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(bots.Msg.GetBots()); n != 0 {
		t.Fatalf("the plugin's bot is still there: %v", bots.Msg.GetBots())
	}
	if bytes, keys, err := s.Engine.PluginStoreUsage("gone"); err != nil || bytes != 0 || keys != 0 {
		t.Fatalf("the plugin's store holds %d bytes in %d keys (%v)", bytes, keys, err)
	}
	// A name that never was a plugin is still not_found.
	_, err = owner.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "never"}))
	wantCode(t, "DeletePlugin of an unknown name", err, connect.CodeNotFound, `no plugin named "never"`)
}

// A file in the folder that cannot be a plugin is listed with why and runs nothing: one over
// 256 KB (refused before it is read whole), and one named after a person's username (its bot
// cannot have that name). Neither takes anything from the person.
func TestPluginsInTheFolderThatCannotLoad(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	if err := os.MkdirAll(pluginPath(s, ""), 0o700); err != nil {
		t.Fatal(err)
	}
	for file, src := range map[string]string{
		"owner.js": echo("imposter:"),
		"huge.js":  "//" + strings.Repeat("x", 256_000-1),
	} {
		if err := os.WriteFile(pluginPath(s, file), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s.Restart()
	for name, want := range map[string]string{
		"huge":  "the source is 256,001 bytes; the limit is 256,000 (256 KB)",
		"owner": `username "owner" is taken`,
	} {
		p := listed(t, owner, name)
		if p == nil || !p.GetEnabled() || p.GetRunning() || p.GetBotId() != "" || !strings.Contains(p.GetError(), want) {
			t.Errorf("%s is %v, want it listed, not running, with %q", name, p, want)
		}
	}
	me, err := owner.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil || me.Msg.GetMember().GetKind() != svcv1.MemberKind_MEMBER_KIND_HUMAN || me.Msg.GetMember().GetUsername() != "owner" {
		t.Fatalf("the owner after the restart: %v %v", me, err)
	}
	bots, err := owner.Bot.ListBots(ctx, req(&svcv1.ListBotsRequest{}))
	if err != nil || len(bots.Msg.GetBots()) != 0 {
		t.Fatalf("bots after the restart: %v %v", bots, err)
	}
}
