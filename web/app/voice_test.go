package app_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"hearth/engine/voice"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestBrowserVoice: an admin makes a voice channel for a role in the channels screen; three
// people join it from their browsers and each receives the others' audio; who speaks shows;
// one mutes, the others see it and receive nothing more from them; one shares a screen and
// another watches it (video frames decoded); one leaves and the others see them go. A member
// without the role does not see the channel, and JoinVoice is refused to them.
func TestBrowserVoice(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t, voiceFlags...)
	srv := webtest.StartVoice(t, nil)
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
	if _, err := srv.Voice(dan).JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: lounge})); connect.CodeOf(err) != connect.CodePermissionDenied && connect.CodeOf(err) != connect.CodeNotFound {
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

// TestBrowserVoiceRefusals: a join that cannot happen says why, plainly: voice is off on the
// server; the channel is full (25 people: the button waits until someone leaves); the member
// is timed out.
func TestBrowserVoiceRefusals(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t, voiceFlags...)
	ctx := context.Background()

	t.Log("a server with voice off")
	off := webtest.Start(t)
	createVoiceChannel(t, off.Join("ann"), "lounge")
	p := voicePage(t, browser, off, "ann", 1280, 800)
	p.openVoice("lounge")
	p.click(".voice-room .voice-join")
	p.waitFor("voice is off", `document.querySelector(".voice-room .voice-refused[role=alert]")?.textContent === "Voice is off on this server."`)
	p.waitFor("the button back", `document.querySelector(".voice-room .voice-join")?.textContent.includes("Join voice") && !document.querySelector(".voice-room .voice-join").disabled`)
	p.noErrors(off.URL)

	t.Log("a full channel")
	// A clock of its own, moved on to let 25 people join from one address (10 a minute).
	clock := webtest.NewClockAt(time.Now())
	srv := webtest.StartVoice(t, func(o *voice.Options) { o.SignalGrace = 5 * time.Minute }, webtest.WithClock(clock))
	owner := srv.Join("owner")
	lounge := createVoiceChannel(t, owner, "lounge").GetId()
	zoe := srv.Join("zoe")
	z := voicePage(t, browser, srv, "zoe", 1280, 800)
	z.openVoice("lounge")
	var sessions []string
	var seated []*webtest.Client
	for i := range 25 {
		if i%8 == 7 {
			clock.Advance(time.Minute)
		}
		m := srv.Join(fmt.Sprintf("m%02d", i))
		res, err := srv.Voice(m).JoinVoice(ctx, connect.NewRequest(&svcv1.JoinVoiceRequest{ChannelId: lounge}))
		if err != nil {
			t.Fatalf("seat %d: %v", i, err)
		}
		sessions = append(sessions, res.Msg.GetSessionId())
		seated = append(seated, m)
	}
	z.waitFor("25 people, the channel full", `document.querySelectorAll(".voice-room .voice-tile").length === 25 && document.querySelector(".voice-room .voice-refused")?.textContent === "This voice channel is full: 25 people are in it." && document.querySelector(".voice-room .voice-join").disabled`)
	if got := eval[string](z, `document.querySelector(".voice-room .voice-tiles").getAttribute("aria-label")`); got != "In lounge: 25 of 25" {
		t.Errorf("the list's name: %q", got)
	}
	if _, err := srv.Voice(seated[3]).LeaveVoice(ctx, connect.NewRequest(&svcv1.LeaveVoiceRequest{SessionId: sessions[3]})); err != nil {
		t.Fatal(err)
	}
	z.waitFor("24 people, the button back", `document.querySelectorAll(".voice-room .voice-tile").length === 24 && !document.querySelector(".voice-room .voice-refused") && !document.querySelector(".voice-room .voice-join").disabled`)

	t.Log("a member timed out")
	if _, err := owner.Server.TimeoutMember(ctx, connect.NewRequest(&svcv1.TimeoutMemberRequest{MemberId: zoe.Member.GetId(), DurationS: 600})); err != nil {
		t.Fatal(err)
	}
	z.click(".voice-room .voice-join")
	z.waitFor("the refusal", `/^Could not join: you are timed out until \d{4}-/.test(document.querySelector(".voice-room .voice-refused[role=alert]")?.textContent ?? "")`)
	if eval[bool](z, `!!document.querySelector(".voice-bar")`) {
		t.Error("a refused join shows the call's bar")
	}
	z.noErrors(srv.URL)
}

// TestBrowserVoiceRidesOutABlip: a call carries on through a network blip. Its Signal stream
// breaks: the client opens it again and the session goes on (nobody sees the person leave);
// its ICE fails: the client asks for an ICE restart and answers the new offer, and the sound
// flows again both ways.
func TestBrowserVoiceRidesOutABlip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, ann, bob, a, b := twoInVoice(t, startBrowser(t, voiceFlags...))
	joinedAt := func() int64 {
		res, err := srv.Voice(bob).ListVoiceStates(ctx, connect.NewRequest(&svcv1.ListVoiceStatesRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range res.Msg.GetStates() {
			if v.GetMemberId() == ann.Member.GetId() {
				return v.GetJoinedAtMs()
			}
		}
		t.Fatal("ann is not in voice")
		return 0
	}
	joined := joinedAt()

	t.Log("ann's Signal stream breaks")
	a.eval0(`window.__voice.dropSignal()`)
	a.waitFor("a second Signal stream", `window.__voice.signalsOpened === 2`)
	a.connected()
	b.hears(ann)
	a.hears(bob)

	t.Log("ann's ICE fails")
	ufrag := `(/a=ice-ufrag:(\S+)/.exec(window.__voice.pc().localDescription.sdp) || [])[1]`
	before := eval[string](a, ufrag)
	a.eval0(`window.__voice.failIce()`)
	a.waitFor("new ICE credentials (the restart's offer answered)", ufrag+` !== `+js(before))
	a.connected()
	b.hears(ann)
	a.hears(bob)

	if got := joinedAt(); got != joined {
		t.Errorf("ann joined again (at %d, first at %d): the session did not carry on", got, joined)
	}
	if eval[int](a, `window.__voice.pcs.length`) != 1 {
		t.Error("ann's client made another connection")
	}
	a.noErrors(srv.URL)
	b.noErrors(srv.URL)
}

// TestBrowserVoiceDeafenVolumePushToTalk: deafened, a person hears nobody and is not heard,
// and the others see it; each person's volume is the listener's to set, and is kept; with
// push-to-talk on, the microphone is on only while the chosen key is held. Reloading the page
// leaves the channel at once (the others see it), and the settings are there after.
func TestBrowserVoiceDeafenVolumePushToTalk(t *testing.T) {
	t.Parallel()
	srv, ann, bob, a, b := twoInVoice(t, startBrowser(t, voiceFlags...))

	t.Log("ann turns bob down")
	a.setText(tileJS(bob)+`.querySelector('input[type=range][aria-label="Volume of bob"]')`, "40")
	playsAt40 := `window.__voice.players.some(p => p.srcObject && Math.abs(p.volume - 0.4) < 0.001)`
	a.waitFor("bob's sound at 40%", playsAt40)
	a.waitFor("kept", `JSON.parse(localStorage.getItem("hearth.voice")).volumes[`+js(bob.Member.GetId())+`] === 0.4`)

	t.Log("ann deafens")
	a.click(`.voice-room button[aria-label="Deafen"]`)
	b.waitFor("ann deafened", tileJS(ann)+`?.querySelector(".icon-headphonesOff[aria-label=deafened]")`)
	a.waitFor("ann's sound off", `window.__voice.players.filter(p => p.srcObject).every(p => p.muted)`)
	a.hearsNothingFrom(bob)
	b.hearsNothingFrom(ann)
	a.click(`.voice-room button[aria-label="Deafen"]`)
	b.waitFor("ann hearing again", `!`+tileJS(ann)+`.querySelector(".icon-headphonesOff")`)
	a.hears(bob)
	b.hears(ann)

	t.Log("ann talks with V held")
	a.click(`.voice-room button[aria-label="Voice settings"]`)
	a.clickJS("Push to talk", `[...document.querySelectorAll("dialog[open] label.check")].find(l => l.textContent.startsWith("Push to talk")).querySelector("input")`)
	a.click(`dialog[open] button[aria-label="Choose the push-to-talk key"]`)
	a.waitFor("asked for a key", `document.querySelector('dialog[open] button[aria-label="Choose the push-to-talk key"]').textContent.startsWith("Press a key")`)
	a.run(keyEvent(input.DispatchKeyEventTypeKeyDown, "v", "KeyV", 86), keyEvent(input.DispatchKeyEventTypeKeyUp, "v", "KeyV", 86))
	a.waitFor("V chosen", `document.querySelector("dialog[open] .voice-key").textContent === "V"`)
	a.closeDialog()
	a.waitFor("the microphone off until V is held", `window.__voice.micEnabled() === false && document.querySelector(".voice-room .voice-phase").textContent.endsWith("push to talk")`)
	a.run(keyEvent(input.DispatchKeyEventTypeKeyDown, "v", "KeyV", 86))
	a.waitFor("the microphone on while V is held", `window.__voice.micEnabled() === true && document.querySelector(".voice-room .voice-phase").textContent.endsWith("talking")`)
	a.run(keyEvent(input.DispatchKeyEventTypeKeyUp, "v", "KeyV", 86))
	a.waitFor("off again", `window.__voice.micEnabled() === false`)

	t.Log("ann reloads the page: she leaves at once; her settings stay")
	a.run(chromedp.Reload())
	b.waitFor("ann gone", `!`+tileJS(ann)+` && document.querySelectorAll(".voice-room .voice-tile").length === 1`)
	a.waitFor("the voice channel again", `!!document.querySelector(".voice-room .voice-join")`)
	a.click(".voice-room .voice-join")
	a.connected()
	a.waitFor("push-to-talk on, bob at 40%", `window.__voice.micEnabled() === false && `+playsAt40)
	a.noErrors(srv.URL)
	b.noErrors(srv.URL)
}

// keyEvent is one key going down or up, as a keyboard sends it (key, code, key code).
func keyEvent(kind input.DispatchKeyEventType, key, code string, keyCode int64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: kind, Key: key, Code: code, WindowsVirtualKeyCode: keyCode})
		return err
	})
}

// TestBrowserVoiceOnAPhone: on a 390 x 844 phone a person opens a voice channel from the
// drawer, joins it and hears the others; the call's buttons fit on the screen; in a text
// channel the call's dock shows under the message box, whose buttons mute and leave.
func TestBrowserVoiceOnAPhone(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t, voiceFlags...)
	srv := webtest.StartVoice(t, nil)
	ctx := context.Background()
	ann, bob := srv.Join("ann"), srv.Join("bob")
	if _, err := ann.Chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})); err != nil {
		t.Fatal(err)
	}
	createVoiceChannel(t, ann, "lounge")
	b := voicePage(t, browser, srv, "bob", 1280, 800)
	b.joinVoice("lounge")
	p := voicePage(t, browser, srv, "ann", 390, 844)
	p.waitFor("general open", `document.querySelector(".channel-title")?.textContent.endsWith("general")`)

	t.Log("ann joins from the drawer")
	p.click(`.channel-view button.menu-button`)
	p.waitFor("the drawer", `getComputedStyle(document.querySelector(".sidebar")).visibility === "visible"`)
	p.waitFor("bob under lounge in the drawer", `!!`+sidePersonJS(bob))
	p.openVoice("lounge")
	p.waitFor("the drawer closed", `getComputedStyle(document.querySelector(".sidebar")).visibility === "hidden"`)
	p.click(".voice-room .voice-join")
	p.connected()
	p.hears(bob)
	b.hears(ann)
	fits := func(what, sel string) {
		t.Helper()
		p.waitFor(what+" on the screen", `(() => { const all = [...document.querySelectorAll(`+js(sel)+`)]; return all.length > 0 && all.every(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight; }); })()`)
	}
	fits("the call's buttons", ".voice-foot button")
	fits("the cards", ".voice-room .voice-tile")
	if !eval[bool](p, noSidewaysScrollJS) {
		t.Error("the voice channel scrolls sideways on a phone")
	}
	if eval[bool](p, `!!document.querySelector(".voice-dock")`) {
		t.Error("the dock shows in the call's own channel")
	}
	p.allNamed("a voice channel on a phone")

	t.Log("in #general, the dock")
	p.click(`.voice-room button.menu-button`)
	p.openChannel("general")
	p.waitFor("the dock under the message box", `(() => { const d = document.querySelector(".voice-dock"), c = document.querySelector(".channel-view .composer"); return d && c && c.getBoundingClientRect().bottom <= d.getBoundingClientRect().top + 1 && d.getBoundingClientRect().bottom <= innerHeight; })()`)
	fits("the dock's buttons", ".voice-dock button")
	if !eval[bool](p, noSidewaysScrollJS) {
		t.Error("#general scrolls sideways with the dock")
	}
	p.click(`.voice-dock button[aria-label="Mute"]`)
	b.waitFor("ann muted", tileJS(ann)+`?.querySelector(".icon-micOff")`)
	p.click(`.voice-dock button[aria-label="Leave voice"]`)
	p.waitFor("the dock gone", `!document.querySelector(".voice-dock")`)
	b.waitFor("ann gone", `!`+tileJS(ann))
	p.noErrors(srv.URL)
	b.noErrors(srv.URL)
}
