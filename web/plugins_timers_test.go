package web_test

import (
	"fmt"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// chat.every takes at most 365 days: a longer period (Infinity, 1e10 s) does not fit a
// duration and overflowed to a negative one, a timer due at once that armed itself again at
// once, without end. The longest period is taken, and its timer waits that long.
func TestPluginTimerPeriodIsBounded(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for secs, shown := range map[string]string{"Infinity": "Infinity", "1e10": "10000000000", "31536001": "31536001"} {
		_, err := owner.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: "forever", Source: fmt.Sprintf(`chat.every(%s, () => {})`, secs)}))
		wantCode(t, "chat.every("+secs+")", err, connect.CodeInvalidArgument, "chat.every: seconds must be at most 31,536,000 (365 days); got "+shown)
	}
	// From a hook as at the top level.
	mustInstall(t, owner, "later", `chat.on('message', m => {
  if (m.text !== '!arm') return;
  try { chat.every(Infinity, () => {}); } catch (e) { chat.sendMessage({channelId: m.channelId, text: e.message}); }
});`)
	st := owner.Subscribe(t, s.Engine.Seq())
	if got := asker(t, nil, owner, st, general.GetId())("!arm"); got != "chat.every: seconds must be at most 31,536,000 (365 days); got Infinity" {
		t.Fatalf("chat.every(Infinity) in a hook: %q", got)
	}

	// A bot watches: its token does not expire while the clock moves a year.
	watcher := s.CreateBot(owner, "watcher")
	st = watcher.Subscribe(t, s.Engine.Seq())
	mustInstall(t, owner, "yearly", fmt.Sprintf(`chat.every(31536000, () => chat.sendMessage({channelId: %q, text: 'a year on'}));`, general.GetId()))
	clock.Advance(364 * 24 * time.Hour)
	mustSend(t, watcher, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "marker"})
	clock.Advance(24 * time.Hour)
	if got := texts(t, st, 2); got[0] != "marker" || got[1] != "a year on" {
		t.Fatalf("after 364 days and one more: %v", got)
	}
}
