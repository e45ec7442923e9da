package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The conversation features of EXTENSIONS.md 1-5 in the browser, two people where they are
// live: replies, pins, group mentions, polls and search filters.

// conversationPeople opens the pages of Olivia (the owner) and Bob (a member), each in
// channel, and returns them with Bob's client.
func conversationPeople(t *testing.T, browser context.Context, srv *webtest.Server, owner *webtest.Client, channel string) (olivia, bob *page, bobC *webtest.Client) {
	t.Helper()
	rename(t, owner, "Olivia", "", "")
	bobC = srv.Join("bob")
	rename(t, bobC, "Bob", "", "")
	olivia = openPage(t, browser, "olivia", 1280, 800)
	olivia.signIn(srv, "olivia")
	olivia.openChannel(channel)
	bob = openPage(t, browser, "bob", 1280, 800)
	bob.signIn(srv, "bob")
	bob.openChannel(channel)
	return olivia, bob, bobC
}

func send(t *testing.T, c *webtest.Client, req *svcv1.SendMessageRequest) *svcv1.Message {
	t.Helper()
	res, err := c.Chat.SendMessage(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetMessage()
}

// uploadFile uploads the file at path as the holder of token and returns the upload's id.
func uploadFile(t *testing.T, srv *webtest.Server, token, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("file", filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	part.Write(data)
	w.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/upload", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK || out.ID == "" {
		t.Fatalf("upload %s: %d %v", path, res.StatusCode, err)
	}
	return out.ID
}

// quoteJS is the text of the reply quote on the channel's message whose text starts with text.
func quoteJS(scope, text string) string {
	return messageJS(scope, text) + `?.querySelector(".reply-quote")?.textContent`
}

// hover moves the mouse over the element the expression finds.
func (p *page) hover(what, find string) {
	p.t.Helper()
	p.waitFor(what, "!!("+find+")")
	box := eval[[]float64](p, `(() => { const el = `+find+`; el.scrollIntoView({block: "center"}); const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	p.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: box[0], Y: box[1]})
		return err
	}))
}

// TestBrowserReplies: Bob answers Olivia's message from its actions; the composer says what it
// answers, and his reply shows the quote on both screens. Olivia answers with R on a focused
// message (Escape cancels first). The quote opens the answered message, loaded around it when
// it is far back; an edit of the answered message changes the quote live, and its deletion
// leaves "Original message deleted". In a thread, a reply answers the thread's root.
func TestBrowserReplies(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	general := ids["general"]
	first := send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "The meetup is on Saturday at the lake"})
	fillChannel(t, srv.CreateBot(owner, "filler"), general, 120)
	latest := send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "Bring something to eat"})
	olivia, bob, _ := conversationPeople(t, browser, srv, owner, "general")
	bob.seesOnce("Bring something to eat")

	t.Log("Bob replies from the message's actions")
	bob.clickJS("Reply", messageJS(".channel-view", "Bring something")+`.querySelector('[aria-label="Reply"]')`)
	bob.waitFor("the composer answering Olivia, focused", `document.querySelector(".channel-view .reply-bar-text")?.textContent === "Replying to Olivia: Bring something to eat" && document.activeElement === document.querySelector(".channel-view .composer-input")`)
	bob.run(chromedp.KeyEvent("Cake?"))
	bob.run(enter())
	bob.waitFor("the reply bar gone", `!document.querySelector(".channel-view .reply-bar")`)
	for _, p := range []*page{bob, olivia} {
		p.waitFor("the quote on the reply", quoteJS(".channel-view", "Cake?")+` === "↱OliviaBring something to eat"`)
	}
	olivia.waitFor("the reply counted as a mention of Olivia", messageJS(".channel-view", "Cake?")+`.classList.contains("msg-mentions-me")`)

	t.Log("Olivia replies with R; Escape cancels it first")
	olivia.eval0(messageJS(".channel-view", "Cake?") + `.focus()`)
	olivia.run(press("r", 82, "r", 0))
	olivia.waitFor("the composer answering Bob", `document.querySelector(".channel-view .reply-bar-text")?.textContent.startsWith("Replying to Bob: Cake?") && document.activeElement === document.querySelector(".channel-view .composer-input")`)
	if v := eval[string](olivia, `document.querySelector(".channel-view .composer-input").value`); v != "" {
		t.Errorf("R went into the message box: %q", v)
	}
	olivia.run(press("Escape", 27, "", 0))
	olivia.waitFor("the reply cancelled", `!document.querySelector(".channel-view .reply-bar")`)
	olivia.eval0(messageJS(".channel-view", "Cake?") + `.focus()`)
	olivia.run(press("r", 82, "r", 0))
	olivia.waitFor("the composer answering Bob", `!!document.querySelector(".channel-view .reply-bar")`)
	olivia.send("Yes, lemon cake")
	bob.waitFor("Olivia's reply quoting Bob", quoteJS(".channel-view", "Yes, lemon cake")+` === "↱BobCake?"`)

	t.Log("a reply to a message far back: the quote opens it in context")
	reply := send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "Where at the lake?", ReplyToId: first.GetId()})
	bob.waitFor("the old message quoted", quoteJS(".channel-view", "Where at the lake?")+` === "↱OliviaThe meetup is on Saturday at the lake"`)
	if eval[bool](bob, messageJS(".channel-view", "The meetup is")+` !== undefined`) {
		t.Fatal("the old message is in the window already: the jump would not load it")
	}
	bob.clickJS("the quote", messageJS(".channel-view", "Where at the lake?")+`.querySelector(".reply-quote")`)
	bob.waitFor("the answered message, loaded around it and marked", fmt.Sprintf(`document.querySelector(".channel-view .msg-target")?.dataset.id === %s && location.hash.endsWith("/m/" + %s)`, js(first.GetId()), js(first.GetId())))
	bob.click(".jump-present")
	bob.waitFor("back at the newest", `!document.querySelector(".jump-present") && `+messageJS(".channel-view", "Where at the lake?")+` !== undefined`)

	t.Log("the answered message edited, then deleted: the quotes follow live")
	if _, err := owner.Chat.EditMessage(context.Background(), connect.NewRequest(&svcv1.EditMessageRequest{MessageId: latest.GetId(), Text: "Bring something to eat and drink"})); err != nil {
		t.Fatal(err)
	}
	bob.waitFor("the quote edited", quoteJS(".channel-view", "Cake?")+` === "↱OliviaBring something to eat and drink"`)
	olivia.clickJS("Delete", messageJS(".channel-view", "Bring something")+`.querySelector('[aria-label="Delete message"]')`)
	olivia.clickJS("Delete, confirmed", buttonJS(".channel-view .msg-actions", "Delete"))
	for _, p := range []*page{bob, olivia} {
		p.waitFor("the quote of a deleted message", quoteJS(".channel-view", "Cake?")+` === "↱ Original message deleted"`)
	}
	if n := eval[int](bob, `document.querySelectorAll(".channel-view button.reply-quote").length`); n != 2 {
		t.Errorf("clickable quotes: %d, want 2 (a deleted message's quote opens nothing)", n)
	}

	t.Log("in a thread: a reply to the root quotes it and goes back to it")
	bob.clickJS("Reply in thread", messageJS(".channel-view", "Where at the lake?")+`.querySelector('[aria-label="Reply in thread"]')`)
	bob.waitFor("the thread", `document.querySelector(".thread-panel .thread-root .msg-text")?.textContent === "Where at the lake?"`)
	bob.clickJS("Reply to the root", `document.querySelector('.thread-panel .thread-root [aria-label="Reply"]')`)
	bob.waitFor("the thread's composer answering", `document.querySelector(".thread-panel .reply-bar-text")?.textContent === "Replying to Olivia: Where at the lake?" && !document.querySelector(".channel-view .reply-bar")`)
	bob.send("By the boathouse", ".thread-panel")
	olivia.clickJS("the thread", messageJS(".channel-view", "Where at the lake?")+`.querySelector(".thread-link")`)
	for _, p := range []*page{bob, olivia} {
		p.waitFor("the quote in the thread", quoteJS(".thread-panel", "By the boathouse")+` === "↱OliviaWhere at the lake?"`)
	}
	bob.clickJS("the quote in the thread", messageJS(".thread-panel", "By the boathouse")+`.querySelector(".reply-quote")`)
	bob.waitFor("the root focused", `document.activeElement === document.querySelector(".thread-panel .thread-root article.msg")`)

	t.Log("a message of the channel answering a thread reply: its quote opens the thread on it")
	boathouse := eval[string](bob, messageJS(".thread-panel", "By the boathouse")+`.dataset.id`)
	send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "Which boathouse?", ReplyToId: boathouse})
	bob.click(`.thread-panel button[aria-label="Close thread"]`)
	bob.waitFor("the thread closed", `!document.querySelector(".thread-panel")`)
	bob.clickJS("the quote of a thread reply", messageJS(".channel-view", "Which boathouse?")+`.querySelector(".reply-quote")`)
	bob.waitFor("the thread open on the reply", fmt.Sprintf(`location.hash.endsWith("/t/" + %s + "/m/" + %s) && !!document.querySelector(".thread-panel")`, js(reply.GetId()), js(boathouse)))
	olivia.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// TestBrowserPins: Olivia (the owner) pins a message from its actions; both see its mark, and
// the count on the header's button; the panel lists it on both screens, and Bob, a member,
// is offered no Pin nor Unpin. A pin opens its message; Olivia unpins from the panel and
// both panels empty. The 51st pin of a channel is refused with the server's words.
func TestBrowserPins(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	general, random := ids["general"], ids["random"]
	send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "House rules: be kind, no spam"})
	send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "Next meetup: Saturday 10:00"})
	olivia, bob, _ := conversationPeople(t, browser, srv, owner, "general")
	bob.seesOnce("Next meetup: Saturday 10:00")
	olivia.seesOnce("House rules: be kind, no spam")
	for _, p := range []*page{olivia, bob} {
		p.waitFor("no pins yet", `document.querySelector(".channel-view .pins-button")?.getAttribute("aria-label") === "Pinned messages (0)"`)
	}
	if eval[bool](bob, messageJS(".channel-view", "House rules")+`.querySelector('[aria-label="Pin message"]') !== null`) {
		t.Error("a member is offered Pin in a text channel")
	}

	t.Log("Olivia pins; both see it")
	olivia.clickJS("Pin message", messageJS(".channel-view", "House rules")+`.querySelector('[aria-label="Pin message"]')`)
	for _, p := range []*page{olivia, bob} {
		p.waitFor("the pinned mark", messageJS(".channel-view", "House rules")+`.querySelector(".pinned-mark")?.textContent === "📌 Pinned by Olivia"`)
		p.waitFor("the count", `document.querySelector(".channel-view .pins-button").getAttribute("aria-label") === "Pinned messages (1)"`)
		p.click(".channel-view .pins-button")
		p.waitFor("the panel with the pin", `[...document.querySelectorAll(".pins-panel .pin .pin-text")].map(e => e.textContent).join("|") === "House rules: be kind, no spam"`)
	}
	olivia.waitFor("the message's action now Unpin", messageJS(".channel-view", "House rules")+`.querySelector('[aria-label="Unpin message"]') !== null`)
	if eval[bool](bob, `!!document.querySelector(".pins-panel .pin") && [...document.querySelectorAll(".pins-panel button")].some(b => b.textContent === "Unpin")`) {
		t.Error("a member is offered Unpin in the panel")
	}
	bob.allNamed("the pins panel")

	t.Log("a second pin goes first; a pin opens its message")
	olivia.clickJS("Pin message", messageJS(".channel-view", "Next meetup")+`.querySelector('[aria-label="Pin message"]')`)
	bob.waitFor("the newest pin first", `[...document.querySelectorAll(".pins-panel .pin .pin-text")].map(e => e.textContent).join("|") === "Next meetup: Saturday 10:00|House rules: be kind, no spam"`)
	bob.clickJS("Show in the channel", `[...document.querySelectorAll(".pins-panel .pin")][1].querySelector(".pin-actions button")`)
	bob.waitFor("the message marked", `document.querySelector(".channel-view .msg-target .msg-text")?.textContent.startsWith("House rules") && !!document.querySelector(".pins-panel")`)

	t.Log("Olivia unpins from the panel; both panels follow")
	olivia.clickJS("Unpin", `[...document.querySelectorAll(".pins-panel .pin")].find(p => p.querySelector(".pin-text").textContent.startsWith("House rules")).querySelector(".pin-actions button:last-child")`)
	for _, p := range []*page{olivia, bob} {
		p.waitFor("one pin left", `[...document.querySelectorAll(".pins-panel .pin .pin-text")].map(e => e.textContent).join("|") === "Next meetup: Saturday 10:00" && document.querySelector(".channel-view .pins-button").getAttribute("aria-label") === "Pinned messages (1)"`)
		p.waitFor("no mark on the unpinned message", messageJS(".channel-view", "House rules")+`.querySelector(".pinned-mark") === null`)
	}
	bob.eval0(`document.querySelector(".pins-panel .pin button").focus()`)
	bob.run(press("Escape", 27, "", 0))
	bob.waitFor("the panel closed by Escape, the focus on its button", `!document.querySelector(".pins-panel") && document.activeElement === document.querySelector(".channel-view .pins-button")`)

	t.Log("the 51st pin is refused with the server's words")
	notesBot := srv.CreateBot(owner, "notes")
	for _, m := range fillChannel(t, notesBot, random, 50) {
		if _, err := owner.Chat.PinMessage(context.Background(), connect.NewRequest(&svcv1.PinMessageRequest{MessageId: m.GetId()})); err != nil {
			t.Fatal(err)
		}
	}
	send(t, notesBot, &svcv1.SendMessageRequest{ChannelId: random, Text: "the 51st note"})
	olivia.openChannel("random")
	olivia.waitFor("50 pins counted", `document.querySelector(".channel-view .pins-button")?.getAttribute("aria-label") === "Pinned messages (50)"`)
	olivia.clickJS("Pin message", messageJS(".channel-view", "the 51st note")+`.querySelector('[aria-label="Pin message"]')`)
	olivia.waitFor("the refusal", `[...document.querySelectorAll(".notice-error")].some(n => n.textContent.includes("Could not pin the message") && n.textContent.includes("50"))`)
	olivia.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// pollJS is the poll on the channel's message.
const pollJS = `document.querySelector(".channel-view .poll")`

// optionsJS lists a poll's options as "text n · p%" joined by "|".
const optionsJS = `[...document.querySelectorAll(".channel-view .poll .poll-choice")].map(b => b.querySelector(".poll-text").textContent + " " + b.querySelector(".poll-count").textContent).join("|")`

func optionJS(text string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(".channel-view .poll .poll-choice")].find(b => b.querySelector(".poll-text").textContent === %s)`, js(text))
}

// TestBrowserPolls: Olivia makes a poll from the composer (the form refuses twice the same
// option and a closing time too soon, as the server would); Bob and Olivia vote, the results
// move live on both screens, who voted shows on hover; Bob changes his vote and takes it back;
// Olivia closes the poll and it is final on both. A poll allowing several options takes them.
func TestBrowserPolls(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	olivia, bob, bobC := conversationPeople(t, browser, srv, owner, "general")

	t.Log("the form")
	if eval[bool](olivia, `!!document.querySelector('.channel-view [aria-label="Create a poll"]')`) == false {
		t.Fatal("no Poll entry in the composer")
	}
	olivia.click(`.channel-view [aria-label="Create a poll"]`)
	olivia.waitFor("the poll form", `document.querySelector("dialog[open]")?.getAttribute("aria-label") === "Create a poll"`)
	olivia.setText(field("Question"), "Where do we meet?")
	olivia.setText(`document.querySelector('dialog[open] [aria-label="Option 1"]')`, "Park")
	olivia.setText(`document.querySelector('dialog[open] [aria-label="Option 2"]')`, "park ")
	olivia.waitFor("the same option twice refused", `document.querySelector('dialog[open] [role="alert"]')?.textContent.includes("twice")`)
	olivia.setText(`document.querySelector('dialog[open] [aria-label="Option 2"]')`, "Beach")
	olivia.clickJS("Add an option", buttonJS("dialog[open]", "Add an option"))
	olivia.waitFor("a third option, focused", `document.activeElement === document.querySelector('dialog[open] [aria-label="Option 3"]')`)
	olivia.run(chromedp.KeyEvent("Library"))
	olivia.eval0(`(() => { const s = document.querySelector("dialog[open] select"); s.value = "custom"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
	soon := time.Now().Add(20 * time.Second).Format("2006-01-02T15:04")
	olivia.setText(field("Date and time"), soon)
	olivia.clickJS("Post poll", buttonJS("dialog[open]", "Post poll"))
	olivia.waitFor("a closing time too soon refused", `document.querySelector('dialog[open] [role="alert"]')?.textContent === "It must close at least a minute from now."`)
	olivia.eval0(`(() => { const s = document.querySelector("dialog[open] select"); s.value = "day"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
	olivia.clickJS("Post poll", buttonJS("dialog[open]", "Post poll"))
	olivia.waitFor("the form closed", `!document.querySelector("dialog")`)
	for _, p := range []*page{olivia, bob} {
		p.waitFor("the poll", pollJS+`?.querySelector(".poll-question")?.textContent === "📊 Where do we meet?" && `+optionsJS+` === "Park 0 · 0%|Beach 0 · 0%|Library 0 · 0%"`)
		p.waitFor("its closing time", pollJS+`.querySelector(".poll-foot").textContent.startsWith("0 people voted · closes in 24 hours")`)
	}
	if eval[bool](bob, pollJS+`.querySelector(".poll-close") !== null`) {
		t.Error("Bob, a member who did not make the poll, is offered to close it")
	}

	t.Log("both vote; the results move on both screens")
	bob.clickJS("Park", optionJS("Park"))
	for _, p := range []*page{olivia, bob} {
		p.waitFor("Bob's vote", optionsJS+` === "Park 1 · 100%|Beach 0 · 0%|Library 0 · 0%"`)
	}
	bob.waitFor("his choice marked", optionJS("Park")+`.getAttribute("aria-pressed") === "true"`)
	olivia.waitFor("not hers", optionJS("Park")+`.getAttribute("aria-pressed") === "false"`)
	olivia.clickJS("Beach", optionJS("Beach"))
	for _, p := range []*page{olivia, bob} {
		p.waitFor("two votes", optionsJS+` === "Park 1 · 50%|Beach 1 · 50%|Library 0 · 0%" && `+pollJS+`.querySelector(".poll-foot").textContent.startsWith("2 people voted")`)
	}
	bob.clickJS("Beach", optionJS("Beach"))
	for _, p := range []*page{olivia, bob} {
		p.waitFor("Bob's vote moved (one option only)", optionsJS+` === "Park 0 · 0%|Beach 2 · 100%|Library 0 · 0%"`)
	}
	olivia.hover("Beach", optionJS("Beach"))
	olivia.waitFor("who voted, on hover", `(() => { const v = `+optionJS("Beach")+`.parentElement.querySelector(".poll-voters"); return getComputedStyle(v).display === "block" && v.textContent === "Olivia, Bob"; })()`)
	bob.clickJS("Beach again: withdrawn", optionJS("Beach"))
	for _, p := range []*page{olivia, bob} {
		p.waitFor("Bob's vote withdrawn", optionsJS+` === "Park 0 · 0%|Beach 1 · 100%|Library 0 · 0%"`)
	}

	t.Log("Olivia closes it: final on both screens")
	olivia.clickJS("Close poll", pollJS+`.querySelector(".poll-close")`)
	olivia.clickJS("Close poll, confirmed", buttonJS(".channel-view .poll-confirm", "Close poll"))
	for _, p := range []*page{olivia, bob} {
		p.waitFor("the poll closed", pollJS+`.querySelector(".poll-kind").textContent === "Poll closed · final results" && `+optionJS("Beach")+`.classList.contains("poll-winner") && `+optionJS("Park")+`.getAttribute("aria-disabled") === "true"`)
	}
	bob.clickJS("Park, after the close", optionJS("Park"))
	time.Sleep(300 * time.Millisecond)
	if got := eval[string](bob, optionsJS); got != "Park 0 · 0%|Beach 1 · 100%|Library 0 · 0%" {
		t.Errorf("a closed poll took a vote: %s", got)
	}

	t.Log("a poll allowing several options")
	send(t, bobC, &svcv1.SendMessageRequest{ChannelId: eval[string](bob, `location.hash.split("/")[2]`), Poll: &svcv1.PollInput{Question: "What do you bring?", Options: []string{"Bread", "Cheese", "Fruit"}, Multiple: true}})
	many := `[...document.querySelectorAll(".channel-view .poll")].find(p => p.textContent.includes("What do you bring?"))`
	olivia.waitFor("the second poll", many+` !== undefined && `+many+`.querySelector(".poll-kind").textContent === "Choose one or more"`)
	// Two options clicked quickly: the second click comes while the first vote is on its way
	// (the page holds each VotePoll until the test lets it go), and counts all the same.
	olivia.eval0(`(() => {
		window.heldVotes = [];
		const fetch = window.fetch;
		window.fetch = (url, init) => String(url).includes("/VotePoll") ? new Promise((go) => window.heldVotes.push(() => go(fetch(url, init)))) : fetch(url, init);
	})()`)
	choice := func(o string) string {
		return fmt.Sprintf(`[...%s.querySelectorAll(".poll-choice")].find(b => b.querySelector(".poll-text").textContent === %s)`, many, js(o))
	}
	olivia.clickJS("Bread", choice("Bread"))
	olivia.waitFor("Bread's vote on its way", `window.heldVotes.length === 1`)
	olivia.clickJS("Fruit, while Bread's vote is on its way", choice("Fruit"))
	olivia.waitFor("both marked at once", choice("Bread")+`.getAttribute("aria-pressed") === "true" && `+choice("Fruit")+`.getAttribute("aria-pressed") === "true"`)
	olivia.eval0(`window.heldVotes.shift()()`)
	olivia.waitFor("the second vote sent once the first is answered", `window.heldVotes.length === 1`)
	olivia.eval0(`window.heldVotes.shift()()`)
	bob.waitFor("both of Olivia's votes", `[...`+many+`.querySelectorAll(".poll-count")].map(c => c.textContent).join("|") === "1 · 100%|0 · 0%|1 · 100%"`)
	olivia.waitFor("her marks, the server's now", choice("Bread")+`.getAttribute("aria-pressed") === "true" && `+choice("Fruit")+`.getAttribute("aria-pressed") === "true" && `+choice("Cheese")+`.getAttribute("aria-pressed") === "false"`)
	if n := eval[int](olivia, `window.heldVotes.length`); n != 0 {
		t.Errorf("%d more votes sent, want none", n)
	}
	bob.waitFor("Bob, its author, may close it", many+`.querySelector(".poll-close") !== null`)
	bob.allNamed("the polls")
	olivia.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// TestBrowserGroupMentions: a moderator is offered @everyone and @here in the mention list, a
// member is not; the moderator's @everyone shows as a chip highlighted for Bob, counted as a
// mention where he is not looking; Bob's @everyone stays his words. Once the community lets
// members use them, Bob is offered them too.
func TestBrowserGroupMentions(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	mia := srv.Join("mia")
	rename(t, mia, "Mia", "", "")
	setRank(t, owner, mia, svcv1.MemberRole_MEMBER_ROLE_MODERATOR)
	bobC := srv.Join("bob")
	rename(t, bobC, "Bob", "", "")
	everyone := srv.Join("evelyn")
	rename(t, everyone, "Evelyn", "", "")
	miaPage := openPage(t, browser, "mia", 1280, 800)
	miaPage.signIn(srv, "mia")
	miaPage.openChannel("general")
	bob := openPage(t, browser, "bob", 1280, 800)
	bob.signIn(srv, "bob")
	bob.openChannel("random")

	options := `[...document.querySelectorAll(".channel-view .mention-list [role=option]")].map(o => o.querySelector(".mention-name").textContent).join("|")`
	t.Log("the moderator is offered them")
	miaPage.typeInto(".channel-view .composer-input", "@ev")
	miaPage.waitFor("@everyone offered, then Evelyn", options+` === "@everyone|Evelyn"`)
	miaPage.run(enter())
	miaPage.waitFor("@everyone in the box", `document.querySelector(".channel-view .composer-input").value === "@everyone "`)
	miaPage.run(chromedp.KeyEvent("the meeting starts now"))
	miaPage.run(enter())
	miaPage.waitFor("sent as a chip", messageJS(".channel-view", "@everyone the meeting")+`?.querySelector(".mention-group")?.textContent === "@everyone"`)
	if eval[bool](miaPage, messageJS(".channel-view", "@everyone the meeting")+`.querySelector(".mention-group").classList.contains("mention-me")`) {
		t.Error("the sender's own @everyone is highlighted for her")
	}
	bob.waitFor("a mention counted in #general", `[...document.querySelectorAll(".side-link")].find(a => a.querySelector(".side-name").textContent === "general")?.getAttribute("aria-label").includes("1 mention")`)
	bob.openChannel("general")
	bob.waitFor("the chip highlighted for Bob", messageJS(".channel-view", "@everyone the meeting")+`?.querySelector(".mention-group.mention-me")?.textContent === "@everyone" && `+messageJS(".channel-view", "@everyone the meeting")+`.classList.contains("msg-mentions-me")`)

	t.Log("a member is not offered them, and his @everyone stays text")
	bob.typeInto(".channel-view .composer-input", "@e")
	bob.waitFor("only Evelyn offered", options+` === "Evelyn"`)
	bob.run(press("Escape", 27, "", 0))
	bob.setText(`document.querySelector(".channel-view .composer-input")`, "@everyone look at this")
	bob.run(enter())
	miaPage.waitFor("Bob's words, no chip", messageJS(".channel-view", "@everyone look")+`?.querySelector(".msg-text").textContent === "@everyone look at this" && !`+messageJS(".channel-view", "@everyone look")+`.querySelector(".mention-group")`)

	t.Log("members may use them once the community says so")
	rank := svcv1.MemberRole_MEMBER_ROLE_MEMBER
	if _, err := owner.Server.UpdateServerSettings(context.Background(), connect.NewRequest(&svcv1.UpdateServerSettingsRequest{GroupMentionRank: &rank})); err != nil {
		t.Fatal(err)
	}
	bob.setText(`document.querySelector(".channel-view .composer-input")`, "")
	bob.typeInto(".channel-view .composer-input", "@h")
	bob.waitFor("@here offered", options+` === "@here"`)
	bob.run(press("Tab", 9, "", 0))
	bob.run(chromedp.KeyEvent("anyone around?"))
	bob.run(enter())
	miaPage.waitFor("Bob's @here highlighted for Mia", messageJS(".channel-view", "@here anyone")+`?.querySelector(".mention-group.mention-me")?.textContent === "@here"`)
	miaPage.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// TestBrowserSearchFilters: from: picked from the suggestions and has:image typed become chips;
// the results are Maria's images only, and one opens in context. A filter's chip goes with
// Backspace (its words back in the box) or its ✕; in: is completed from the channels; a
// malformed date is refused with the server's words naming it.
func TestBrowserSearchFilters(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	maria := srv.Join("maria")
	rename(t, maria, "Maria Lindqvist", "", "")
	marek := srv.Join("marek")
	rename(t, marek, "Marek", "", "")
	upload := func(c *webtest.Client) string {
		return uploadFile(t, srv, c.Token, writePNG(t, "photo.png", 40, 30))
	}
	general, random := ids["general"], ids["random"]
	photo := send(t, maria, &svcv1.SendMessageRequest{ChannelId: general, Text: "the lake at dawn", AttachmentIds: []string{upload(maria)}})
	fillChannel(t, srv.CreateBot(owner, "filler"), general, 80)
	send(t, maria, &svcv1.SendMessageRequest{ChannelId: general, Text: "no picture here, just the lake"})
	send(t, marek, &svcv1.SendMessageRequest{ChannelId: random, Text: "my lake photo", AttachmentIds: []string{upload(marek)}})
	send(t, maria, &svcv1.SendMessageRequest{ChannelId: random, Text: "a second photo", AttachmentIds: []string{upload(maria)}})
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("random")

	box := `document.querySelector('dialog[open] input[aria-label="Search messages"]')`
	chips := `[...document.querySelectorAll("dialog[open] .search-chip")].map(c => c.querySelector(".search-chip-key").textContent + c.querySelector(".search-chip-value").textContent).join(" ")`
	suggestions := `[...document.querySelectorAll("dialog[open] .search-suggestion")].map(s => s.querySelector(".search-suggestion-word").textContent).join("|")`
	results := `[...document.querySelectorAll("dialog[open] .search-result .search-text")].map(r => r.textContent).join("|")`
	alice.run(press("k", 75, "", 2)) // Ctrl+K
	alice.waitFor("the search, focused", `document.activeElement === `+box)

	t.Log("from: picked from the suggestions")
	alice.run(chromedp.KeyEvent("fr"))
	alice.waitFor("the filter's name suggested", suggestions+` === "from:"`)
	alice.run(press("Tab", 9, "", 0))
	alice.waitFor("from: in the box", box+`.value === "from:"`)
	alice.run(chromedp.KeyEvent("mar"))
	alice.waitFor("the people suggested", suggestions+` === "from:marek|from:maria"`)
	alice.waitFor("the first chosen at once", `document.querySelector("dialog[open] .search-suggestion.selected .search-suggestion-word")?.textContent === "from:marek"`)
	alice.run(press("ArrowDown", 40, "", 0))
	alice.waitFor("Maria chosen", `document.querySelector("dialog[open] .search-suggestion.selected .search-suggestion-word")?.textContent === "from:maria"`)
	alice.run(enter())
	alice.waitFor("a chip", chips+` === "from:maria" && `+box+`.value === ""`)
	alice.waitFor("Maria's messages, filters alone", results+` === "a second photo|no picture here, just the lake|the lake at dawn"`)

	t.Log("has:image typed")
	alice.run(chromedp.KeyEvent("has:image "))
	alice.waitFor("two chips", chips+` === "from:maria has:image" && `+box+`.value === ""`)
	alice.waitFor("Maria's pictures", results+` === "a second photo|the lake at dawn"`)
	alice.run(chromedp.KeyEvent("lake"))
	alice.waitFor("and the word", results+` === "the lake at dawn" && document.querySelector("dialog[open] .search-result mark")?.textContent === "lake"`)
	alice.allNamed("the search with chips")

	t.Log("the result opens in context")
	alice.clickJS("the result", `document.querySelector("dialog[open] .search-result")`)
	alice.waitFor("the message in #general, marked", fmt.Sprintf(`!document.querySelector("dialog") && document.querySelector(".channel-view .msg-target")?.dataset.id === %s && document.querySelector(".channel-title").textContent.endsWith("general")`, js(photo.GetId())))

	t.Log("Backspace gives a chip back; ✕ takes one away; in: from the channels")
	alice.run(press("k", 75, "", 2))
	alice.waitFor("the search, focused", `document.activeElement === `+box)
	alice.run(chromedp.KeyEvent("from:marek has:file "))
	alice.waitFor("two chips", chips+` === "from:marek has:file"`)
	alice.waitFor("Marek's file", results+` === "my lake photo"`)
	alice.run(press("Backspace", 8, "", 0))
	alice.waitFor("has:file back in the box", chips+` === "from:marek" && `+box+`.value === "has:file"`)
	alice.setText(box, "")
	alice.clickJS("remove from:marek", `document.querySelector('dialog[open] [aria-label="Remove the filter from:marek"]')`)
	alice.waitFor("no chip", chips+` === ""`)
	alice.typeInto(`dialog[open] input[aria-label="Search messages"]`, "in:ra")
	alice.waitFor("the channel suggested", suggestions+` === "in:random"`)
	alice.clickJS("in:random", `document.querySelector("dialog[open] .search-suggestion")`)
	alice.waitFor("the chip", chips+` === "in:random"`)
	alice.waitFor("#random's messages", results+` === "a second photo|my lake photo"`)

	t.Log("a malformed date: the server's words")
	alice.run(chromedp.KeyEvent("before:2026-13-45 "))
	alice.waitFor("the refusal naming it", `document.querySelector('dialog[open] .error-row[role="alert"]')?.textContent.includes("2026-13-45")`)
	alice.closeDialog()
	alice.noErrors(srv.URL)
	if strings.Contains(eval[string](alice, `document.body.innerText`), "undefined") {
		t.Error("the page shows undefined")
	}
}

// TestBrowserConversationContrast: the texts of the new pieces (a quote, "Original message
// deleted", the pinned mark and the pins panel, a poll voted and closed with who voted, group
// mention chips that reached the person and one that did not, "Replying to", the search's
// chips and suggestions) read at 4.5:1 or better, light and dark.
func TestBrowserConversationContrast(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	general := ids["general"]
	rename(t, owner, "Olivia", "", "")
	bob := srv.Join("bob")
	rename(t, bob, "Bob", "", "")
	gone := send(t, bob, &svcv1.SendMessageRequest{ChannelId: general, Text: "soon gone"})
	send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "answering it", ReplyToId: gone.GetId()})
	if _, err := bob.Chat.DeleteMessage(context.Background(), connect.NewRequest(&svcv1.DeleteMessageRequest{MessageId: gone.GetId()})); err != nil {
		t.Fatal(err)
	}
	rules := send(t, owner, &svcv1.SendMessageRequest{ChannelId: general, Text: "<!everyone> the rules are pinned"})
	if _, err := owner.Chat.PinMessage(context.Background(), connect.NewRequest(&svcv1.PinMessageRequest{MessageId: rules.GetId()})); err != nil {
		t.Fatal(err)
	}
	send(t, bob, &svcv1.SendMessageRequest{ChannelId: general, Text: "<!here> from a member", ReplyToId: rules.GetId()})
	poll := send(t, bob, &svcv1.SendMessageRequest{ChannelId: general, Poll: &svcv1.PollInput{Question: "Tea or coffee?", Options: []string{"Tea", "Coffee"}}})
	closed := send(t, bob, &svcv1.SendMessageRequest{ChannelId: general, Poll: &svcv1.PollInput{Question: "Cake?", Options: []string{"Yes", "No"}}})
	for _, p := range []*svcv1.Message{poll, closed} {
		if _, err := bob.Chat.VotePoll(context.Background(), connect.NewRequest(&svcv1.VotePollRequest{MessageId: p.GetId(), OptionIds: []string{"0"}})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := bob.Chat.ClosePoll(context.Background(), connect.NewRequest(&svcv1.ClosePollRequest{MessageId: closed.GetId()})); err != nil {
		t.Fatal(err)
	}
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	alice.waitFor("the pieces", `!!document.querySelector(".channel-view .reply-quote-deleted") && !!document.querySelector(".channel-view .pinned-mark") && document.querySelectorAll(".channel-view .poll").length === 2 && !!document.querySelector(".channel-view .mention-group.mention-me") && !!document.querySelector(".channel-view .mention-quiet")`)
	alice.clickJS("Coffee", `[...document.querySelectorAll(".channel-view .poll-choice")].find(b => b.textContent.includes("Coffee"))`)
	alice.hover("Tea", `[...document.querySelectorAll(".channel-view .poll-choice")].find(b => b.textContent.includes("Tea"))`)
	alice.click(".channel-view .pins-button")
	alice.waitFor("the pin", `!!document.querySelector(".pins-panel .pin")`)
	alice.clickJS("Reply", messageJS(".channel-view", "answering it")+`.querySelector('[aria-label="Reply"]')`)
	alice.waitFor("the reply bar", `!!document.querySelector(".channel-view .reply-bar")`)
	// The sidebar is not what this test is about (its # icons are graphics, at 3:1).
	check := func(where string) { alice.contrastInBothThemes(where, "span.side-icon") }
	check("the channel with its pins")
	alice.click(".search-button")
	alice.waitFor("the search", `!!document.querySelector("dialog[open]")`)
	alice.run(chromedp.KeyEvent("from:bob has:link h"))
	alice.waitFor("a chip and a suggestion", `!!document.querySelector("dialog[open] .search-chip") && !!document.querySelector("dialog[open] .search-suggestion")`)
	check("the search's chips")
	alice.closeDialog()
	alice.noErrors(srv.URL)
}
