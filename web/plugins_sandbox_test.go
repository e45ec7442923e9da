package web_test

import (
	"sort"
	"strings"
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Through the real server: a plugin whose hook builds length² characters with $' (which took
// the server's memory in one native step), or runs a quadratic regular expression, is stopped
// by a limit; one whose valueOf answers the check small and the built-in huge gets what was
// checked; the bystander and the server go on.
func TestPluginBuiltinTricksAreStoppedOrBounded(t *testing.T) {
	// Not in parallel: a plugin's limits are real time and the process's memory, which other
	// tests beside it would spend.
	s := webtest.Start(t)
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustInstall(t, owner, "copier", `chat.on('message', m => { 'x'.repeat(131000).replaceAll('x', "$'") });`)
	mustInstall(t, owner, "scanner", `chat.on('message', m => { 'x'.repeat(131000).match(/x*y|x/g) });`)
	mustInstall(t, owner, "flipper", `chat.on('message', m => {
  if (m.text !== '!flip') return;
  let n = 0;
  const s = 'ab'.repeat({valueOf() { return n++ ? 4e6 : 2 }});
  chat.sendMessage({channelId: m.channelId, text: 'flipped ' + s.length});
});`)
	mustInstall(t, owner, "bystander", echo("still here:"))
	st := owner.Subscribe(t, s.Engine.Seq())

	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!flip"})
	// The copier's one native step stops at the next check of the limits goja makes; on a
	// machine busy enough that it comes more than a second past the time limit, the hook is
	// abandoned (and ends at that check all the same): either is the limit stopping it.
	if p := waitListed(t, owner, "copier", func(p *svcv1.Plugin) bool { return !p.GetRunning() }); !p.GetEnabled() ||
		!strings.Contains(p.GetError(), "stopped: hook message") && !strings.Contains(p.GetError(), "stopped: a hook did not stop within 1s of its time limit") {
		t.Fatalf("plugin copier stopped as %v, want an error saying its hook was stopped by a limit", p)
	}
	stoppedWith(t, owner, "scanner", "stopped: hook message ran longer than 500ms")
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "!echo x"})
	var got []string
	for len(got) < 2 {
		if m := st.Next().GetMessageCreated(); m != nil && m.GetAuthorId() != owner.Member.GetId() {
			got = append(got, m.GetText())
		}
	}
	sort.Strings(got) // the two plugins answer at their own pace
	if strings.Join(got, "|") != "flipped 4|still here:x" {
		t.Fatalf("the plugins answered %v", got)
	}
}
