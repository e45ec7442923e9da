package app_test

import (
	"strconv"
	"testing"

	"hearth/engine"
	"hearth/web/webtest"
)

// TestBrowserArrivalsAnnouncedPolitely: a screen reader hears a message from another person
// as it arrives ("Name: text", in a polite live region, the text as plain words without the
// markdown's markers), and nothing else: not the person's
// own message, not the older pages loaded as they scroll up (the list itself is not a live
// region), not a window opened on another channel.
func TestBrowserArrivalsAnnouncedPolitely(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv := webtest.Start(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	g := &garden{t: t, owner: srv.Join("olivia")}
	general := g.channel("general", "", "")
	long := g.channel("long", "", "")
	fillChannel(t, srv.CreateBot(g.owner, "archivist"), long, 150)

	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	const region = `document.querySelector(".channel-view .arrivals")`
	said := region + `.textContent`
	if !eval[bool](alice, region+`.getAttribute("aria-live") === "polite" && document.querySelector(".channel-view .message-list").getAttribute("aria-live") === "off"`) {
		t.Fatalf("the arrivals region is not polite, or the list is live itself")
	}

	// Only what arrives once the channel's first window is in is told: a message that comes
	// while it loads is in that window, as the older ones are.
	alice.waitFor("general's first window", `document.querySelector(".channel-view .channel-intro") !== null && document.querySelector(".channel-view .message-list").getAttribute("aria-busy") === "false"`)

	t.Log("another's message is told; one's own is not")
	aliceID := alice.state(srv, "alice").GetMe().GetId()
	alice.sendAPI(t, g.owner, general, "hello <@"+aliceID+">, welcome")
	alice.waitFor("the first message told, the mention by name", said+` === "olivia: hello @Alice, welcome"`)
	alice.send("my own words")
	alice.seesOnce("my own words")
	// The markdown's markers are not read out ("star star second"): the words are, as they show.
	alice.sendAPI(t, g.owner, general, "**second** one, _really_ *twice* with `code`,\n\non\n```js\ntwo lines\n```")
	const plain = "olivia: second one, really twice with code, on two lines"
	alice.waitFor("the second message told, as plain words", said+` === `+js(plain))
	if got := eval[string](alice, said); got != plain {
		t.Errorf("the region says %q, want %q", got, plain)
	}

	t.Log("a long channel: its first window and the older pages loaded above are not told")
	alice.openChannel("long")
	alice.seesOnce("message 00150")
	for range 2 {
		before := eval[int](alice, `document.querySelectorAll(".channel-view article.msg").length`)
		alice.eval0(`document.querySelector(".channel-view .message-scroller").scrollTop = 0`)
		alice.waitFor("an older page", `document.querySelectorAll(".channel-view article.msg").length > `+strconv.Itoa(before)+` && !document.querySelector(".message-list[aria-busy=true]")`)
	}
	if got := eval[string](alice, said); got != "" {
		t.Errorf("after loading older pages the region says %q, want nothing", got)
	}
	alice.noErrors(srv.URL)
}
