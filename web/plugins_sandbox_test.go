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
	// tests beside it would spend (a local CI run once saw the copier's hook take more than a second past
	// its limit to stop, beside the parallel tests).
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
	stoppedWith(t, owner, "copier", "stopped: hook message")
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
