package app_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestFeatureScreenshots writes the screenshots of the moderation, emoji, search, link preview,
// bots and plugins screens (docs/screenshots/*.png) when HEARTH_SCREENSHOTS names the folder:
//
//	HEARTH_SCREENSHOTS=$PWD/docs/screenshots go test ./web/app -run TestFeatureScreenshots
func TestFeatureScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		t.Skip("HEARTH_SCREENSHOTS is not set")
	}
	browser := startBrowser(t)
	srv := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	ctx := context.Background()
	g := newTroubledGarden(t, srv)
	owner, general, tomatoes, seeds := g.owner, g.general, g.tomatoes, g.seeds
	sam, ines, lee, rex, tom := g.sam, g.ines, g.lee, g.rex, g.tom
	say := func(c *webtest.Client, channelID, text string) *svcv1.Message { return g.say(c, channelID, text, "") }
	report := func(c *webtest.Client, m *svcv1.Message, note string) {
		if _, err := c.Server.ReportMessage(ctx, connect.NewRequest(&svcv1.ReportMessageRequest{MessageId: m.GetId(), Note: note})); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []struct {
		name string
		c    color.RGBA
	}{{"tomato", color.RGBA{220, 60, 50, 255}}, {"basil", color.RGBA{60, 160, 70, 255}}, {"sunflower", color.RGBA{240, 190, 40, 255}}} {
		addEmoji(t, srv, owner.Token, e.name, writeDisc(t, e.name+".png", e.c))
	}

	say(owner, general, "Good morning everyone! The **spring planting day** is this Saturday at 9.")
	say(sam, general, "I'll bring the seedlings from the greenhouse. Anyone need *basil*? :basil:")
	say(lee, tomatoes, "My Sungold tomatoes are finally ripening :tomato:")
	say(ines, tomatoes, "Tomato leaves curling usually means heat stress, water in the morning")
	say(sam, seeds, "Swapping tomato seeds: Black Krim for any paste variety")
	spam := say(rex, general, "CHEAP GARDEN TOOLS!!! write to me for the best deal on rakes")
	rude := say(tom, seeds, "Nobody wants your seeds, Sam")
	report(sam, spam, "Spam: he posts this in every channel.")
	report(lee, rude, "Rude to Sam again, third time this week.")

	// A page with a link preview: title, site, description and picture.
	picture, err := os.ReadFile(writePNG(t, "compost.png", 240, 240))
	if err != nil {
		t.Fatal(err)
	}
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/compost.png" {
			w.Header().Set("Content-Type", "image/png")
			w.Write(picture)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><meta property="og:title" content="Hot composting in four weeks"><meta property="og:site_name" content="The Allotment Journal"><meta property="og:description" content="Layer greens and browns, keep it as damp as a wrung-out sponge, and turn it every few days: a guide for small gardens."><meta property="og:image" content="http://%s/compost.png"></head></html>`, r.Host)
	}))
	defer pages.Close()

	maya := openPage(t, browser, "maya", 1280, 800)
	maya.signIn(srv, "maya")
	maya.openChannel("general")
	maya.send("This is how we will do the new compost bins: " + pages.URL + "/compost")
	maya.waitFor("the preview", `document.querySelector(".channel-view .preview img")?.complete && document.querySelector(".channel-view .preview-description")`)
	shoot(t, maya, filepath.Join(dir, "link-preview.png"))

	t.Log("search")
	maya.click(".search-button")
	maya.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	maya.run(chromedp.KeyEvent("tomato"))
	maya.waitFor("the results", `document.querySelectorAll("dialog[open] .search-result mark").length >= 3`)
	shoot(t, maya, filepath.Join(dir, "search.png"))
	maya.closeDialog()
	phone := openTab(t, maya, "maya on a phone", 390, 844)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + general))
	phone.waitFor("#general", `document.querySelectorAll(".channel-view article.msg").length > 3`)
	phone.run(press("k", 75, "", 2)) // Ctrl+K
	phone.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	phone.run(chromedp.KeyEvent("tomato"))
	phone.waitFor("the results", `document.querySelectorAll("dialog[open] .search-result mark").length >= 3`)
	shoot(t, phone, filepath.Join(dir, "search-phone.png"))
	phone.closeDialog()

	t.Log("a member reports a message")
	samPage := openPage(t, browser, "sam", 1280, 800)
	samPage.signIn(srv, "sam")
	samPage.openChannel("seed-swap")
	samPage.seesOnce("Nobody wants your seeds, Sam")
	samPage.clickJS("Report message", messageJS(".channel-view", "Nobody wants your seeds")+`.querySelector('[aria-label="Report message"]')`)
	samPage.setText(`document.querySelector('dialog[open] textarea')`, "He keeps going after me in every channel.")
	samPage.waitFor("the count", `document.querySelector("dialog[open] .report-count").textContent.endsWith("/ 1,000")`)
	shoot(t, samPage, filepath.Join(dir, "moderation-report.png"))
	samPage.closeDialog()

	t.Log("the moderator's queue, a card with moderation, the bans list")
	inesPage := openPage(t, browser, "ines", 1280, 800)
	inesPage.signIn(srv, "ines")
	inesPage.openChannel("general")
	inesPage.openTool("Moderation")
	inesPage.waitFor("the reports", `document.querySelectorAll("dialog[open] .report").length === 2`)
	shootDialog(t, inesPage, filepath.Join(dir, "moderation-reports.png"))
	inesPage.closeDialog()
	inesPage.openCard("Rex Deals")
	shoot(t, inesPage, filepath.Join(dir, "moderation-member-card.png"))
	inesPage.clickJS("Ban", buttonJS("dialog[open] .mod-actions", "Ban"))
	inesPage.waitFor("the confirmation", `!!document.querySelector("dialog[open] .confirm-question")`)
	inesPage.setText(`document.querySelector("dialog[open] .reason-field input")`, "Selling tools in every channel")
	rexPage := openPage(t, browser, "rex", 1280, 800)
	rexPage.signIn(srv, "rex")
	rexPage.waitFor("the chat", `!!document.querySelector(".chat")`)
	inesPage.clickJS("Ban, confirmed", buttonJS("dialog[open] .confirm", "Ban"))
	rexPage.waitFor("the banned screen", `!!document.querySelector("#banned-title")`)
	shoot(t, rexPage, filepath.Join(dir, "moderation-banned.png"))
	if _, err := owner.Server.BanMember(ctx, connect.NewRequest(&svcv1.BanMemberRequest{MemberId: tom.Member.GetId(), Reason: "Went after Sam in every channel"})); err != nil {
		t.Fatal(err)
	}
	inesPage.openTool("Moderation")
	inesPage.clickJS("the Bans tab", `document.querySelector('dialog[open] [role="tab"]:nth-child(2)')`)
	inesPage.waitFor("two bans", `document.querySelectorAll("dialog[open] .ban").length === 2`)
	shootDialog(t, inesPage, filepath.Join(dir, "moderation-bans.png"))
	inesPage.closeDialog()

	t.Log("a block and what it does to a DM")
	dm, err := lee.Chat.OpenDM(ctx, connect.NewRequest(&svcv1.OpenDMRequest{MemberIds: []string{sam.Member.GetId()}}))
	if err != nil {
		t.Fatal(err)
	}
	say(lee, dm.Msg.GetChannel().GetId(), "Want some of my Sungold seeds?")
	samPage.openChannel("Lee Park")
	samPage.seesOnce("Want some of my Sungold seeds?")
	samPage.openCard("Lee Park")
	samPage.clickJS("Block", buttonJS("dialog[open] .dialog-actions", "Block"))
	samPage.waitFor("the block's effect", `!!document.querySelector("dialog[open] .effects")`)
	shoot(t, samPage, filepath.Join(dir, "moderation-block.png"))
	samPage.closeDialog()
	samPage.waitFor("the DM notice", `!!document.querySelector(".channel-view .dm-block-notice")`)
	shoot(t, samPage, filepath.Join(dir, "moderation-dm-blocked.png"))

	t.Log("custom emoji: an upload's results")
	pack := writeZip(t, "garden-pack.zip", [][2]string{
		{"garden/carrot.png", readFile(t, writeDisc(t, "carrot.png", color.RGBA{240, 130, 30, 255}))},
		{"garden/blueberry.png", readFile(t, writeDisc(t, "blueberry.png", color.RGBA{70, 90, 200, 255}))},
		{"garden/tomato.png", readFile(t, writeDisc(t, "tomato.png", color.RGBA{220, 60, 50, 255}))},
		{"garden/readme.png", "not a picture"},
	})
	maya.openTool("Custom emoji")
	maya.run(chromedp.SetUploadFiles(chromedp.CSS(`dialog[open] .emoji-upload input[type="file"]`), []string{pack}))
	maya.waitFor("the results", `!!document.querySelector('.upload-results [role="status"]')`)
	shootDialog(t, maya, filepath.Join(dir, "emoji.png"))
	maya.closeDialog()

	t.Log("bots and plugins")
	maya.openTool("Bots and plugins")
	if _, err := owner.Bot.CreateBot(ctx, connect.NewRequest(&svcv1.CreateBotRequest{Username: "rainbot", DisplayName: "Rain gauge"})); err != nil {
		t.Fatal(err)
	}
	maya.setText(field("Username"), "weatherbot")
	maya.setText(field("Display name (optional)"), "Weather")
	maya.clickJS("Create bot", buttonJS("dialog[open]", "Create bot"))
	maya.waitFor("the token", `document.querySelector('dialog[open] input[aria-label="Bot token"]')?.value.startsWith("hb_")`)
	shoot(t, maya, filepath.Join(dir, "bots.png"))
	maya.closeDialog()
	install := func(name, source string) {
		if _, err := owner.Bot.InstallPlugin(ctx, connect.NewRequest(&svcv1.InstallPluginRequest{Name: name, Source: source})); err != nil {
			t.Fatal(err)
		}
	}
	install("pinger", "chat.on(\"message\", (m) => {\n  if (m.text === \"!ping\") chat.sendMessage({ channelId: m.channelId, text: \"pong\" });\n});\n")
	install("frost", "chat.on(\"message\", (m) => {\n  if (m.text === \"!frost\") throw new Error(\"the forecast service answered 503\");\n});\n")
	install("welcome", "chat.on(\"memberJoined\", (m) => {});\n")
	if _, err := owner.Bot.SetPluginEnabled(ctx, connect.NewRequest(&svcv1.SetPluginEnabledRequest{Name: "welcome", Enabled: false})); err != nil {
		t.Fatal(err)
	}
	maya.send("!frost")
	maya.send("!ping")
	maya.waitFor("pong", `[...document.querySelectorAll(".channel-view .msg-text")].some(m => m.textContent === "pong")`)
	maya.openTool("Bots and plugins")
	maya.clickJS("the Plugins tab", `document.querySelector('dialog[open] [role="tab"]:nth-child(2)')`)
	maya.waitFor("frost's error", `document.querySelector('.plugin-item[aria-label^="frost"] .plugin-error')?.textContent.includes("503")`)
	maya.setText(field("Name (also its bot's username)"), "broken")
	maya.setText(`document.querySelector("dialog[open] textarea.plugin-source")`, `chat.on("message", (m) => {`)
	maya.clickJS("Install", buttonJS("dialog[open] .install-plugin", "Install"))
	maya.waitFor("the server's error", `!!document.querySelector('dialog[open] .install-plugin .plugin-error[role="alert"]')`)
	shoot(t, maya, filepath.Join(dir, "plugins.png"))
	maya.eval0(`document.querySelector('.plugin-item[aria-label^="frost"]').scrollIntoView()`)
	shoot(t, maya, filepath.Join(dir, "plugins-list.png"))
}

// troubledGarden is the garden of the moderation screenshots: its channels, and its people, of
// whom Inês is a moderator and Rex and Tom make trouble.
type troubledGarden struct {
	*garden
	general, tomatoes, seeds string
	sam, ines, lee, rex, tom *webtest.Client
}

func newTroubledGarden(t *testing.T, srv *webtest.Server) *troubledGarden {
	t.Helper()
	g, people := newGarden(t, srv, [2]string{"sam", "Sam Okafor"}, [2]string{"ines", "Inês Duarte"}, [2]string{"lee", "Lee Park"}, [2]string{"rex", "Rex Deals"}, [2]string{"tom", "Tom Vale"})
	tg := &troubledGarden{garden: g, sam: people["sam"], ines: people["ines"], lee: people["lee"], rex: people["rex"], tom: people["tom"]}
	tg.general = g.channel("general", "", "Everything about the garden, and then some")
	g.channel("announcements", "", "News from the committee")
	tg.tomatoes = g.channel("tomatoes", "Growing", "Forty varieties and counting")
	tg.seeds = g.channel("seed-swap", "Growing", "Offer and ask for seeds")
	setRank(t, g.owner, tg.ines, svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	return tg
}

// shootDialog is shoot without the focus ring a dialog opened by a script's click leaves on its
// Close button (a click of a mouse leaves none).
func shootDialog(t *testing.T, p *page, path string) {
	t.Helper()
	p.eval0(`document.activeElement?.matches('dialog [aria-label="Close"]') && document.activeElement.blur()`)
	shoot(t, p, path)
}

// writeDisc writes a 64 x 64 picture of a disc of colour c on a transparent ground, with a
// lighter spot: something that looks like an emoji.
func writeDisc(t *testing.T, name string, c color.RGBA) string {
	t.Helper()
	const size = 64
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			dx, dy := x-size/2, y-size/2
			if dx*dx+dy*dy > 30*30 {
				continue
			}
			px := c
			if sx, sy := x-22, y-20; sx*sx+sy*sy < 7*7 {
				px = color.RGBA{255, 255, 255, 255}
			}
			img.Set(x, y, px)
		}
	}
	return savePNG(t, name, img)
}
