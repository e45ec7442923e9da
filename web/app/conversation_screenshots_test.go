package app_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestConversationScreenshots writes the screenshots of replies, pins, polls and the search's
// filter chips (docs/screenshots/conversation-*.png), on a desktop and a phone, light and dark,
// when HEARTH_SCREENSHOTS names the folder:
//
//	HEARTH_SCREENSHOTS=$PWD/docs/screenshots go test ./web/app -run TestConversationScreenshots
func TestConversationScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		t.Skip("HEARTH_SCREENSHOTS is not set")
	}
	browser := startBrowser(t)
	srv := webtest.Start(t)
	ctx := context.Background()
	g, people := newGarden(t, srv, [2]string{"sam", "Sam Okafor"}, [2]string{"ines", "Inês Duarte"}, [2]string{"lee", "Lee Park"})
	owner, channel := g.owner, g.channel
	general := channel("general", "", "Everything about the garden, and then some")
	channel("announcements", "", "News from the committee")
	channel("tomatoes", "Growing", "Forty varieties and counting")
	sam, ines, lee := people["sam"], people["ines"], people["lee"]
	setRank(t, owner, ines, svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	pin := func(c *webtest.Client, m *svcv1.Message) {
		if _, err := c.Chat.PinMessage(ctx, connect.NewRequest(&svcv1.PinMessageRequest{MessageId: m.GetId()})); err != nil {
			t.Fatal(err)
		}
	}
	vote := func(c *webtest.Client, m *svcv1.Message, option string) {
		if _, err := c.Chat.VotePoll(ctx, connect.NewRequest(&svcv1.VotePollRequest{MessageId: m.GetId(), OptionIds: []string{option}})); err != nil {
			t.Fatal(err)
		}
	}

	rules := send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "Garden rules: water what you plant, label your beds, and close the gate behind you 🌻"})
	pin(owner, rules)
	seedlings := send(t, sam, &svcv1.SendMessageRequest{ChannelId: general, Text: "I'll bring the seedlings from the greenhouse on Saturday. Anyone need *basil*?"})
	send(t, ines, &svcv1.SendMessageRequest{ChannelId: general, Text: "Yes please, two pots for the herb bed!", ReplyToId: seedlings.GetId()})
	lock := send(t, ines, &svcv1.SendMessageRequest{ChannelId: general, Text: "<!everyone> the shed gets a new lock on Friday: pick up your key from me"})
	pin(ines, lock)
	poll := send(t, lee, &svcv1.SendMessageRequest{ChannelId: general, Poll: &svcv1.PollInput{
		Question: "What should we plant first in the new bed?", Options: []string{"Tomatoes", "Beans", "Sunflowers"},
		ClosesAtMs: time.Now().Add(3 * 24 * time.Hour).UnixMilli(),
	}})
	vote(sam, poll, "1")
	vote(ines, poll, "0")
	vote(lee, poll, "1")
	picture := uploadFile(t, srv, sam.Token, writePNG(t, "greenhouse.png", 640, 360))
	send(t, sam, &svcv1.SendMessageRequest{ChannelId: general, Text: "The greenhouse this morning", AttachmentIds: []string{picture}})
	send(t, lee, &svcv1.SendMessageRequest{ChannelId: general, Text: "Looks great! Is the watering rota up yet?"})

	maya := openPage(t, browser, "maya", 1280, 800)
	maya.signIn(srv, "maya")
	maya.openChannel("general")
	maya.waitFor("the picture", `document.querySelector(".channel-view .att-image img")?.complete`)

	t.Log("a poll with results, voted")
	option := func(p *page, text string) string {
		return `[...document.querySelectorAll(".channel-view .poll-choice")].find(b => b.querySelector(".poll-text").textContent === "` + text + `")`
	}
	maya.clickJS("Beans", option(maya, "Beans"))
	maya.waitFor("Maya's vote", option(maya, "Beans")+`.getAttribute("aria-pressed") === "true" && `+option(maya, "Beans")+`.querySelector(".poll-count").textContent === "3 · 75%"`)
	maya.eval0(`document.querySelector(".channel-view .poll").scrollIntoView({block: "center"})`)
	maya.hover("Beans", option(maya, "Beans"))
	shootLightDark(t, maya, dir, "conversation-poll")

	t.Log("replying, with a quote above")
	maya.clickJS("Reply", messageJS(".channel-view", "Looks great!")+`.querySelector('[aria-label="Reply"]')`)
	maya.waitFor("the reply bar", `!!document.querySelector(".channel-view .reply-bar")`)
	maya.send("Yes, it's on the board by the shed")
	maya.waitFor("the quote", messageJS(".channel-view", "Yes, it's on the board")+`?.querySelector(".reply-quote") != null`)
	maya.clickJS("Reply", messageJS(".channel-view", "The greenhouse this morning")+`.querySelector('[aria-label="Reply"]')`)
	maya.waitFor("the reply bar", `document.querySelector(".channel-view .reply-bar-text")?.textContent.startsWith("Replying to Sam Okafor")`)
	maya.run(chromedp.KeyEvent("Lovely light in there"))
	maya.eval0(`document.querySelector(".channel-view .message-scroller").scrollTop = 1e6`)
	shootLightDark(t, maya, dir, "conversation-reply")

	t.Log("the pins beside the messages")
	maya.click(".channel-view .pins-button")
	maya.waitFor("two pins", `document.querySelectorAll(".pins-panel .pin").length === 2`)
	maya.eval0(`document.activeElement?.blur()`)
	shootLightDark(t, maya, dir, "conversation-pins")
	maya.click(".pins-head .icon-button")

	t.Log("search filters as chips")
	maya.click(".search-button")
	maya.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	maya.run(chromedp.KeyEvent("from:sam has:image "))
	maya.waitFor("Sam's picture found", `document.querySelectorAll("dialog[open] .search-chip").length === 2 && document.querySelectorAll("dialog[open] .search-result").length === 1`)
	maya.run(chromedp.KeyEvent("after:"))
	maya.waitFor("the days suggested", `document.querySelectorAll("dialog[open] .search-suggestion").length === 3`)
	shootLightDark(t, maya, dir, "conversation-search-chips")
	maya.closeDialog()

	t.Log("on a phone")
	phone := openTab(t, maya, "maya on a phone", 390, 844)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + general))
	phone.waitFor("#general", `document.querySelectorAll(".channel-view article.msg").length > 3 && document.querySelector(".channel-view .att-image img")?.complete`)
	phone.eval0(`document.querySelector(".channel-view .poll").scrollIntoView({block: "center"})`)
	shoot(t, phone, filepath.Join(dir, "conversation-poll-phone.png"))
	phone.clickJS("Reply", messageJS(".channel-view", "Looks great!")+`.querySelector('[aria-label="Reply"]')`)
	phone.waitFor("the reply bar", `!!document.querySelector(".channel-view .reply-bar")`)
	phone.eval0(`document.querySelector(".channel-view .message-scroller").scrollTop = 1e6`)
	shoot(t, phone, filepath.Join(dir, "conversation-reply-phone.png"))
	phone.run(press("Escape", 27, "", 0))
	phone.click(".channel-view .pins-button")
	phone.waitFor("two pins", `document.querySelectorAll(".pins-panel .pin").length === 2`)
	shoot(t, phone, filepath.Join(dir, "conversation-pins-phone.png"))
	phone.click(".pins-head .icon-button")
	phone.run(press("k", 75, "", 2)) // Ctrl+K
	phone.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	phone.run(chromedp.KeyEvent("from:sam has:image "))
	phone.waitFor("Sam's picture found", `document.querySelectorAll("dialog[open] .search-chip").length === 2 && document.querySelectorAll("dialog[open] .search-result").length === 1`)
	shoot(t, phone, filepath.Join(dir, "conversation-search-chips-phone.png"))
}

// shootLightDark writes name.png, then name-dark.png in the dark theme, and goes back to light.
func shootLightDark(t *testing.T, p *page, dir, name string) {
	t.Helper()
	shoot(t, p, filepath.Join(dir, name+".png"))
	dark(t, p, true)
	shoot(t, p, filepath.Join(dir, name+"-dark.png"))
	dark(t, p, false)
}
