package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"hearth/engine"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// chat.store holds at most 10,000 keys per plugin: the 10,001st is refused with the limit named,
// a key already stored may still be replaced, and a deleted key makes room. Keys are 1 to 256
// bytes. The first 9,998 keys are seeded in one batch (storing them one by one through a hook
// would take 10,000 commits).
func TestPluginStoreKeyLimit(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustInstall(t, owner, "hoarder", `
chat.on('message', m => {
  const say = t => chat.sendMessage({channelId: m.channelId, text: t});
  const [cmd, key] = m.text.split(' ');
  const k = key === '<empty>' ? '' : key;
  try {
    if (cmd === '!set') { chat.store.set(k, 1); say('ok'); }
    if (cmd === '!del') { chat.store.delete(k); say('deleted'); }
  } catch (e) { say('error ' + e.message); }
});`)
	const seeded = engine.PluginKeysMax - 2
	s.Seed(func(b *store.Batch) error {
		var bytes int64
		for i := range seeded {
			k := fmt.Sprintf("seed%05d", i)
			if err := b.PutPluginValue("hoarder", k, []byte("1")); err != nil {
				return err
			}
			bytes += int64(len(k) + 1)
		}
		return b.PutPluginStoreUsage("hoarder", &storepb.PluginStoreUsage{Bytes: bytes, Keys: seeded})
	})
	st := owner.Subscribe(t, s.Engine.Seq())
	ask := asker(t, clock, owner, st, general.GetId())
	for _, c := range []struct{ q, want string }{
		{"!set a", "ok"}, // 9,999
		{"!set b", "ok"}, // 10,000
		{"!set c", `error chat.store.set: storing "c" would make 10,001 keys; a plugin stores at most 10,000`},
		{"!set a", "ok"}, // a replacement adds no key
		{"!set seed00000", "ok"},
		{"!del a", "deleted"},
		{"!set c", "ok"},
		{"!set d", `error chat.store.set: storing "d" would make 10,001 keys; a plugin stores at most 10,000`},
		{"!set <empty>", "error chat.store.set: key must not be empty"},
		{"!del <empty>", "error chat.store.delete: key must not be empty"},
		{"!del c", "deleted"},
		{"!set " + strings.Repeat("k", 256), "ok"},
		{"!set " + strings.Repeat("k", 257), "error chat.store.set: key is 257 bytes; the limit is 256"},
	} {
		if got := ask(c.q); got != c.want {
			t.Fatalf("%.20s: %q, want %q", c.q, got, c.want)
		}
	}
}

// console lines past the rate (a burst of 50, then 10 a second, on the server's clock) are
// dropped, and the next line that is written says how many were.
func TestPluginConsoleRate(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	logs := &logBuffer{}
	s := webtest.Start(t, webtest.WithClock(clock), withLog(logs))
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustInstall(t, owner, "chatty", `
chat.on('message', m => {
  if (m.text === '!burst') for (let i = 0; i < 60; i++) console.log('line ' + i);
  if (m.text === '!once') console.warn('after a while');
  chat.sendMessage({channelId: m.channelId, text: 'done'});
});`)
	st := owner.Subscribe(t, s.Engine.Seq())
	say := func(text string) {
		t.Helper()
		mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: text})
		if got := texts(t, st, 2)[1]; got != "done" {
			t.Fatalf("the plugin said %q", got)
		}
	}
	say("!burst")
	count := func(part string) int { return strings.Count(logs.String(), part) }
	if n := count("plugin=chatty line=\"line "); n != 50 {
		t.Fatalf("%d lines of the burst were logged, want 50:\n%s", n, logs.String())
	}
	if count(`line="line 49"`) != 1 || count(`line="line 50"`) != 0 {
		t.Fatalf("the burst kept other lines than the first 50:\n%s", logs.String())
	}
	clock.Advance(time.Second)
	say("!once")
	waitLog(t, logs, "level=WARN", "plugin console", "plugin=chatty", `line="after a while"`, "dropped_before=10")
}
