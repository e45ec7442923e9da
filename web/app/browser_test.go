package app_test

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// community starts a server whose owner (joined through the API) made #general and #random.
func community(t *testing.T, options ...webtest.Option) (*webtest.Server, *webtest.Client, map[string]string) {
	t.Helper()
	srv := webtest.Start(t, options...)
	owner := srv.Join("olivia")
	ids := map[string]string{}
	for _, name := range []string{"general", "random"} {
		res, err := owner.Chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{
			Name: name, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Topic: "Talk about " + name,
		}))
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = res.Msg.GetChannel().GetId()
	}
	return srv, owner, ids
}

// writePNG writes a w x h picture and returns its path.
func writePNG(t *testing.T, name string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(200 * x / w), uint8(120 + 100*y/h), 90, 255})
		}
	}
	return savePNG(t, name, img)
}

// savePNG writes img as a PNG file named name in a temporary directory and returns its path.
func savePNG(t *testing.T, name string, img image.Image) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return path
}

// blockSends makes the page's SendMessage calls fail at the network (on) or go through (off).
func (p *page) blockSends(srv *webtest.Server, on bool) {
	p.t.Helper()
	p.block(srv.URL+"/svc.v1.ChatService/SendMessage", on)
}

func (p *page) sendAPI(t *testing.T, c *webtest.Client, channelID, text string) {
	t.Helper()
	if _, err := c.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: channelID, Text: text})); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserTwoPeopleChat is the scenario: two people in two browsers sign up through
// an invite link, write to each other live, see unread and mention badges come and go, react, reply in
// a thread, share an image, keep a message that could not be sent until it goes (once), and
// carry on after the server restarts without losing or doubling a message.
func TestBrowserTwoPeopleChat(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	bob := openPage(t, browser, "bob", 1280, 800)

	t.Log("sign up through an invite link")
	inv, err := owner.Server.CreateInvite(context.Background(), connect.NewRequest(&svcv1.CreateInviteRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	alice.signUp(srv, inv.Msg.GetInvite().GetCode(), "alice", "Alice")
	bob.signUp(srv, inv.Msg.GetInvite().GetCode(), "bob", "Bob")
	alice.openChannel("general")
	bob.openChannel("general")

	t.Log("messages go both ways, live")
	alice.send("Hi Bob, welcome!")
	bob.seesOnce("Hi Bob, welcome!")
	bob.send("Thanks @alice!")
	alice.seesOnce("Thanks @Alice!")
	alice.waitFor("the mention of Alice highlighted", `[...document.querySelectorAll(".mention-me")].some(e => e.textContent === "@Alice")`)

	t.Log("unread and mention badges, and the tab's title")
	alice.openChannel("random")
	bob.send("@alice are you there?")
	bob.send("a plain message")
	alice.waitFor("badges on #general", `document.querySelector('.side-link[aria-label="#general, 2 unread, 1 mention"] .badge-mention')?.textContent === "1"`)
	alice.waitFor("the unread count in the title", `document.title === "(2) #random · Hearth"`)
	alice.openChannel("general")
	alice.waitFor("#general read", `document.querySelector('.side-link[aria-label="#general"]') !== null && document.title === "#general · Hearth"`)
	alice.seesOnce("@Alice are you there?")

	t.Log("read state follows to another tab")
	aliceTab2 := openTab(t, alice, "alice's second tab")
	aliceTab2.run(chromedp.Navigate(srv.URL + "/app/"))
	aliceTab2.openChannel("random")
	alice.openChannel("random")
	bob.send("one more for alice")
	for _, p := range []*page{alice, aliceTab2} {
		p.waitFor("#general unread", `document.querySelector('.side-link[aria-label="#general, 1 unread"]') !== null`)
	}
	alice.openChannel("general")
	alice.seesOnce("one more for alice")
	aliceTab2.waitFor("#general read in the second tab", `document.querySelector('.side-link[aria-label="#general"]') !== null`)

	t.Log("react with the emoji picker")
	alice.clickJS("Add reaction on bob's question", messageJS(".channel-view", "@Alice are you there?")+`?.querySelector('[aria-label="Add reaction"]')`)
	alice.allNamed("the emoji picker")
	alice.click(`dialog[open] button[aria-label="thumbs up +1"]`)
	bob.waitFor("alice's reaction", messageJS(".channel-view", "@Alice are you there?")+`?.querySelector('.reaction[aria-label="thumbs up +1: 1"] .reaction-emoji')?.textContent === "👍"`)

	t.Log("reply in a thread")
	bob.clickJS("Reply in thread on alice's message", messageJS(".channel-view", "Hi Bob, welcome!")+`?.querySelector('[aria-label="Reply in thread"]')`)
	bob.waitFor("the thread panel", `document.querySelector(".thread-panel .thread-root .msg-text")?.textContent === "Hi Bob, welcome!"`)
	bob.waitFor("the channel still at its newest message, narrower", `(() => { const s = document.querySelector(".channel-view .message-scroller"); return s.scrollHeight - s.scrollTop - s.clientHeight < 2; })()`)
	bob.send("a reply in the thread", ".thread-panel")
	bob.waitFor("the reply in the thread", countJS(".thread-panel .message-list > article.msg:not(.msg-pending)", "a reply in the thread")+" === 1")
	alice.waitFor("the reply count", messageJS(".channel-view", "Hi Bob, welcome!")+`?.querySelector(".thread-link")?.textContent === "1 reply"`)
	alice.clickJS("the thread link", messageJS(".channel-view", "Hi Bob, welcome!")+`?.querySelector(".thread-link")`)
	alice.waitFor("the reply in alice's thread panel", countJS(".thread-panel .message-list > article.msg", "a reply in the thread")+" === 1")
	alice.allNamed("a thread")
	alice.click(`.thread-panel button[aria-label="Close thread"]`)
	alice.waitFor("the thread closed", `!document.querySelector(".thread-panel")`)

	t.Log("share an image")
	picture := writePNG(t, "sunset.png", 640, 400)
	alice.run(chromedp.SetUploadFiles(chromedp.CSS(".channel-view input[type=file]"), []string{picture}))
	alice.waitFor("the upload done", `document.querySelector(".channel-view .upload .upload-status")?.textContent.endsWith("kB")`)
	alice.allNamed("an upload ready to send")
	alice.click(`.channel-view button[aria-label="Send"]`)
	// 640x400 fits a 400x300 box as 400x250: the space is kept before the image arrives.
	imageJS := `document.querySelector('.channel-view .att-image img[alt="sunset.png"]')`
	bob.waitFor("the image, its size reserved and loaded", imageJS+`?.getAttribute("width") === "400" && `+imageJS+`?.getAttribute("height") === "250" && `+imageJS+`.complete && `+imageJS+`.naturalWidth === 640`)
	alice.waitFor("the image on alice's side", imageJS+`?.naturalWidth === 640`)

	t.Log("a message that cannot go yet waits, keeps its client_id, and goes once")
	alice.blockSends(srv, true)
	alice.send("sent while the network was down")
	alice.waitFor("the pending message and its error", `document.querySelector(".channel-view .msg-pending .pending-error")?.textContent.startsWith("Will retry")`)
	alice.blockSends(srv, false)
	bob.seesOnce("sent while the network was down")
	alice.seesOnce("sent while the network was down")
	alice.waitFor("nothing pending", `!document.querySelector(".msg-pending")`)

	t.Log("the server restarts; both resume without losing or doubling a message")
	srv.Restart()
	alice.sendAPI(t, owner, ids["general"], "written while they reconnect")
	for _, p := range []*page{alice, bob} {
		p.seesOnce("written while they reconnect")
		p.waitFor("the connection back", `!document.querySelector(".outage")`)
	}
	bob.send("bob after the restart")
	alice.seesOnce("bob after the restart")
	for _, p := range []*page{alice, bob} {
		for _, text := range []string{"Hi Bob, welcome!", "Thanks @Alice!", "@Alice are you there?", "a plain message", "one more for alice", "sent while the network was down", "written while they reconnect", "bob after the restart"} {
			p.seesOnce(text)
		}
		n := eval[int](p, `document.querySelectorAll(".channel-view .message-list > article.msg").length`)
		if n != 9 { // the eight texts and the image
			t.Errorf("%s sees %d messages in #general, want 9:\n%s", p.name, n, p.describe())
		}
	}
	for _, p := range []*page{alice, bob, aliceTab2} {
		p.noErrors(srv.URL)
	}
}

// openTab opens another tab in the same browser context as p (same storage, same person).
func openTab(t *testing.T, p *page, name string, size ...int64) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(p.ctx)
	t.Cleanup(cancel)
	tab := &page{t: t, name: name, ctx: ctx}
	w, h := int64(1280), int64(800)
	if len(size) == 2 {
		w, h = size[0], size[1]
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		t.Fatalf("%s: open a tab: %v", name, err)
	}
	tab.collectErrors()
	return tab
}
