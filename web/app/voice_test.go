package app_test

import (
	"context"
	"strconv"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestBrowserVoice: an admin makes a voice channel for a role in the channels screen; three
// people join it from their browsers and each receives the others' audio; who speaks shows;
// one mutes, the others see it and receive nothing more from them; one shares a screen and
// another watches it (video frames decoded); one leaves and the others see them go. A member
// without the role does not see the channel, and JoinVoice is refused to them.
func TestBrowserVoice(t *testing.T) {
	browser := startBrowser(t, voiceFlags...)
	srv := startVoiceServer(t)
	ctx := context.Background()
	ann := srv.Join("ann")
	bob, cat, dan := srv.Join("bob"), srv.Join("cat"), srv.Join("dan")
	if _, err := ann.Chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})); err != nil {
		t.Fatal(err)
	}
	role, err := ann.Server.CreateRole(ctx, connect.NewRequest(&svcv1.CreateRoleRequest{Name: "Talkers"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*webtest.Client{bob, cat} {
		if _, err := ann.Server.SetMemberRoles(ctx, connect.NewRequest(&svcv1.SetMemberRolesRequest{MemberId: c.Member.GetId(), RoleIds: []string{role.Msg.GetRole().GetId()}})); err != nil {
			t.Fatal(err)
		}
	}

	a := voicePage(t, browser, srv, "ann", 1280, 800)
	d := voicePage(t, browser, srv, "dan", 1280, 800)

	t.Log("ann makes the voice channel, for the Talkers")
	a.run(chromedp.Navigate(srv.URL + "/app/#/community/channels"))
	a.setText(field("Name"), "Lounge")
	a.clickJS("Voice", `[...document.querySelectorAll(".admin-section label.check")].find(l => l.textContent.startsWith("Voice")).querySelector("input")`)
	a.clickJS("Create channel", button(".admin-section", "Create channel"))
	a.waitFor("its settings", `document.querySelector("dialog[open] .dialog-head h2")?.textContent === "#lounge"`)
	if eval[bool](a, `[...document.querySelectorAll("dialog[open] label.check")].some(l => l.textContent.startsWith("Default channel"))`) {
		t.Error("a voice channel's settings offer to make it a default channel")
	}
	a.clickJS("limit to roles", `[...document.querySelectorAll("dialog[open] label.check")].find(l => l.textContent.startsWith("Only members with")).querySelector("input")`)
	a.clickJS("Talkers", `[...document.querySelectorAll("dialog[open] .role-checks label")].find(l => l.textContent === "Talkers").querySelector("input")`)
	a.clickJS("Save access", button("dialog[open]", "Save access"))
	a.waitFor("saved", `[...document.querySelectorAll("dialog[open] .ok-row")].some(p => p.textContent === "Saved.")`)
	a.closeDialog()
	a.waitFor("the row says it is voice", `[...document.querySelectorAll(".channel-row")].some(r => r.textContent.includes("lounge") && r.textContent.includes("Voice") && r.textContent.includes("Only Talkers"))`)
	lounge := ""
	for _, c := range a.state(srv, "ann").GetChannels() {
		if c.GetName() == "lounge" {
			lounge = c.GetId()
			if c.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_VOICE {
				t.Fatalf("#lounge is %v", c.GetKind())
			}
		}
	}

	b := voicePage(t, browser, srv, "bob", 1280, 800)
	c := voicePage(t, browser, srv, "cat", 1280, 800)

	t.Log("three join; each hears the two others")
	a.joinVoice("lounge")
	b.joinVoice("lounge")
	c.joinVoice("lounge")
	for _, p := range []*page{a, b, c} {
		p.waitFor("three cards and three in the sidebar", `document.querySelectorAll(".voice-room .voice-tile").length === 3 && document.querySelectorAll(".sidebar .voice-person").length === 3`)
	}
	a.hears(bob)
	a.hears(cat)
	b.hears(ann)
	b.hears(cat)
	c.hears(ann)
	c.hears(bob)
	// The fake microphone beeps: the server hears people speak, and everyone sees it.
	a.waitFor("someone else speaking", `[...document.querySelectorAll(".voice-room .voice-tile.speaking")].some(t => t.dataset.member !== `+js(ann.Member.GetId())+`)`)
	a.waitFor("someone speaking in the sidebar", `!!document.querySelector(".sidebar .voice-person.speaking")`)

	t.Log("dan, without the role, sees no lounge, and may not join it")
	d.waitFor("general in dan's sidebar", `!!document.querySelector('.side-link[aria-label="#general"]')`)
	if eval[bool](d, `!!document.querySelector(".voice-link, .voice-person")`) {
		t.Error("dan's sidebar shows the voice channel or who is in it")
	}
	if _, err := voiceAPI(srv, dan).JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: lounge})); connect.CodeOf(err) != connect.CodePermissionDenied && connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("dan's JoinVoice: %v, want permission_denied or not_found", err)
	}

	t.Log("bob mutes: the others see it and receive nothing more from him")
	b.click(`.voice-room button[aria-label="Mute"]`)
	b.waitFor("bob's own button pressed", `document.querySelector('.voice-room button[aria-label="Mute"]').getAttribute("aria-pressed") === "true"`)
	for _, p := range []*page{a, c} {
		p.waitFor("bob's card muted", tileJS(bob)+`?.querySelector(".icon-micOff[aria-label=muted]") && `+tileJS(bob)+`.getAttribute("aria-label").includes("muted")`)
		p.waitFor("bob muted in the sidebar", `!!`+sidePersonJS(bob)+`?.querySelector(".icon-micOff")`)
	}
	a.hearsNothingFrom(bob)
	c.hearsNothingFrom(bob)
	a.hears(cat)

	t.Log("cat shares her screen; ann watches it")
	c.click(`.voice-room button[aria-label="Share your screen"]`)
	c.waitFor("cat sharing", `document.querySelector('.voice-room button[aria-label="Share your screen"]').getAttribute("aria-pressed") === "true"`)
	a.waitFor("cat live in the sidebar", `!!`+sidePersonJS(cat)+`?.querySelector(".voice-live")`)
	a.click(`.voice-room button[aria-label="Watch cat's screen"]`)
	a.waitFor("cat's screen, large, playing", `document.querySelector(".voice-stage video")?.videoWidth > 0 && document.querySelector(".voice-stage-name").textContent === "cat's screen"`)
	start := a.received()[cat.Member.GetId()].Video
	a.waitFor("video frames from cat", `window.__voice.inbound().then(r => (r[`+js(cat.Member.GetId())+`]?.video ?? 0) > `+strconv.FormatInt(start+10, 10)+`)`)
	if got := b.received()[cat.Member.GetId()].Video; got == 0 {
		// Bob is sent the screen too, whether he watches it or not.
		b.waitFor("video frames from cat at bob's", `window.__voice.inbound().then(r => (r[`+js(cat.Member.GetId())+`]?.video ?? 0) > 0)`)
	}
	a.allNamed("a voice channel with a screen watched")

	t.Log("bob leaves; the others see him go")
	b.click(`.voice-room button[aria-label="Leave voice"]`)
	b.waitFor("bob out, offered to join again", `document.querySelector(".voice-room .voice-join")?.textContent.includes("Join voice") && !document.querySelector(".voice-bar")`)
	for _, p := range []*page{a, c} {
		p.waitFor("bob gone", `!`+tileJS(bob)+` && !`+sidePersonJS(bob)+` && document.querySelectorAll(".voice-room .voice-tile").length === 2`)
	}
	b.waitFor("bob sees two left", `document.querySelectorAll(".voice-room .voice-tile").length === 2`)

	t.Log("cat stops sharing; ann's screen goes back to the cards")
	c.click(`.voice-room button[aria-label="Share your screen"]`)
	a.waitFor("no screen, no live mark", `!document.querySelector(".voice-stage") && !`+sidePersonJS(cat)+`?.querySelector(".voice-live")`)

	for _, p := range []*page{a, b, c, d} {
		p.noErrors(srv.URL)
	}
}
