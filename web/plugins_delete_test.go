package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// getter answers "!get k" with the JSON of chat.store.get(k), so that a test sees what a
// plugin finds in its store.
const getter = `chat.on('message', m => {
  if (m.text.startsWith('!get ')) chat.sendMessage({channelId: m.channelId, text: 'got ' + JSON.stringify(chat.store.get(m.text.slice(5)))});
});`

// storeUsage is what the plugin name's store holds.
func storeUsage(t *testing.T, s *webtest.Server, name string) (int64, int) {
	t.Helper()
	bytes, keys, err := s.Engine.PluginStoreUsage(name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes, keys
}

// DeletePlugin deletes the stored values before anything else, so that a step that fails (here
// the file, which a folder in the way keeps from going; a crash there is the same) leaves the
// plugin to be deleted again, never values that a later plugin of that name would find. The
// old order (file, bot, store) left the values whenever a step before the last failed.
func TestDeletePluginDeletesTheStoreFirst(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	p := mustInstall(t, owner, "keeper", getter)
	if err := s.Engine.PluginStoreSet("keeper", "kept", []byte(`"old"`)); err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(pluginPath(s, "keeper.js.disabled"), "in-the-way")
	if err := os.MkdirAll(blocker, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := owner.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "keeper"}))
	wantCode(t, "a DeletePlugin whose file cannot be removed", err, connect.CodeInternal, "could not be changed")
	if bytes, keys := storeUsage(t, s, "keeper"); bytes != 0 || keys != 0 {
		t.Fatalf("after a DeletePlugin cut short the store holds %d bytes in %d keys", bytes, keys)
	}
	// It is listed, stopped, with why; the bot goes last: it is still there for a DeletePlugin
	// to finish the job.
	if l := listed(t, owner, "keeper"); l == nil || l.GetRunning() || !strings.Contains(l.GetError(), "DeletePlugin did not finish (its stored values are deleted; its file could not be removed); delete it again") {
		t.Fatalf("after a DeletePlugin cut short the plugin is listed as %v", l)
	}
	if id := s.Engine.PluginBots()["keeper"]; id != p.GetBotId() {
		t.Fatalf("the plugin's bot after a DeletePlugin cut short: %q, want %q", id, p.GetBotId())
	}
	if err := os.RemoveAll(pluginPath(s, "keeper.js.disabled")); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Bot.DeletePlugin(ctx, req(&svcv1.DeletePluginRequest{Name: "keeper"})); err != nil {
		t.Fatalf("DeletePlugin again: %v", err)
	}
	if id := s.Engine.PluginBots()["keeper"]; id != "" {
		t.Fatalf("the plugin's bot %s is still there", id)
	}
	if l := listed(t, owner, "keeper"); l != nil {
		t.Fatalf("the deleted plugin is listed: %v", l)
	}
	// A later plugin of that name starts empty.
	mustInstall(t, owner, "keeper", getter)
	ask := asker(t, nil, owner, owner.Subscribe(t, s.Engine.Seq()), general.GetId())
	if got := ask("!get kept"); got != "got undefined" {
		t.Fatalf("the reinstalled plugin found %q", got)
	}
}

// A plugin that gets a new bot starts with an empty store: values under its name without a bot
// (what a crash inside DeletePlugin left before the store was deleted first) are not inherited,
// by an install or by a file put in the folder and loaded at start.
func TestNewPluginBotStartsWithAnEmptyStore(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for _, name := range []string{"heir", "dropped"} {
		for _, k := range []string{"a", "b"} {
			if err := s.Engine.PluginStoreSet(name, k, []byte(`"left over"`)); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Not even the top level sees them.
	mustInstall(t, owner, "heir", "if (chat.store.get('a') !== undefined) throw new Error('inherited');\n"+getter)
	if bytes, keys := storeUsage(t, s, "heir"); bytes != 0 || keys != 0 {
		t.Fatalf("the installed plugin's store holds %d bytes in %d keys", bytes, keys)
	}
	st := owner.Subscribe(t, s.Engine.Seq())
	if got := asker(t, nil, owner, st, general.GetId())("!get a"); got != "got undefined" {
		t.Fatalf("the installed plugin found %q", got)
	}

	if err := os.WriteFile(pluginPath(s, "dropped.js"), []byte("if (chat.store.get('a') !== undefined) throw new Error('inherited');\n"+getter), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	if p := waitListed(t, owner, "dropped", func(p *svcv1.Plugin) bool { return p.GetRunning() }); p.GetBotId() == "" {
		t.Fatalf("the plugin loaded at start: %v", p)
	}
	if bytes, keys := storeUsage(t, s, "dropped"); bytes != 0 || keys != 0 {
		t.Fatalf("the plugin loaded at start has a store of %d bytes in %d keys", bytes, keys)
	}
	// A plugin that keeps its bot keeps its values: a replacement, and a restart.
	if err := s.Engine.PluginStoreSet("heir", "mine", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	mustInstall(t, owner, "heir", getter+"\n// v2")
	s.Restart()
	if _, keys := storeUsage(t, s, "heir"); keys != 1 {
		t.Fatalf("a replaced plugin kept %d keys, want 1", keys)
	}
}

// A disable whose file cannot be renamed fails, and the plugin is listed as what its file says
// and what a restart does: enabled (stopped, with why), not disabled.
func TestDisableThatCannotRenameStaysEnabled(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	mustInstall(t, owner, "sticky", getter)
	blocker := filepath.Join(pluginPath(s, "sticky.js.disabled"), "in-the-way")
	if err := os.MkdirAll(blocker, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := owner.Bot.SetPluginEnabled(ctx, req(&svcv1.SetPluginEnabledRequest{Name: "sticky", Enabled: false}))
	wantCode(t, "a disable whose file cannot be renamed", err, connect.CodeInternal, "could not be changed")
	l := listed(t, owner, "sticky")
	if l == nil || !l.GetEnabled() || l.GetRunning() || !strings.Contains(l.GetError(), "disabling it failed") {
		t.Fatalf("after a failed disable the plugin is listed as %v", l)
	}
	s.Restart()
	waitListed(t, owner, "sticky", func(p *svcv1.Plugin) bool { return p.GetEnabled() && p.GetRunning() })
}
