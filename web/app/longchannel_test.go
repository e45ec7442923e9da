package app_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

const longChannelSize = 10_000

// TestBrowserLongChannel scrolls a channel of 10,000 messages both ways and jumps into it: the
// page never holds more than the window (250 messages), the message in sight stays in place as
// pages load above it, and a jump lands on its message with the channel's start above it.
func TestBrowserLongChannel(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv := webtest.Start(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	owner := srv.Join("olivia")
	res, err := owner.Chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{Name: "long", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	long := res.Msg.GetChannel().GetId()
	bot := srv.CreateBot(owner, "archivist")
	msgs := fillChannel(t, bot, long, longChannelSize)

	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("long")
	last := msgs[len(msgs)-1].GetText()
	alice.seesOnce(last)

	const (
		count     = `document.querySelectorAll(".channel-view .message-list > article.msg").length`
		firstText = `document.querySelector(".channel-view .message-list > article.msg .msg-text").textContent`
		scroller  = `document.querySelector(".channel-view .message-scroller")`
	)
	t.Log("scroll up: older pages load above, the window stays at 250, the message in sight stays put")
	for range 8 {
		before := eval[string](alice, firstText)
		alice.eval0(scroller + `.scrollTop = 0`)
		alice.waitFor("an older page", firstText+` !== `+js(before)+` && !document.querySelector(".message-list[aria-busy=true]")`)
		// The message that was first before the page came is still in sight, near the top.
		alice.waitFor("the anchor kept", fmt.Sprintf(`(() => {
			const el = [...document.querySelectorAll(".channel-view .message-list > article.msg")].find(e => e.querySelector(".msg-text").textContent === %s);
			const box = %s.getBoundingClientRect(), r = el.getBoundingClientRect();
			return r.top >= box.top - 1 && r.top < box.top + 200;
		})()`, js(before), scroller))
		if n := eval[int](alice, count); n > 250 {
			t.Fatalf("the page holds %d messages; the window is 250", n)
		}
	}
	if n := eval[int](alice, count); n != 250 {
		t.Errorf("after 8 pages up the page holds %d messages, want the full window of 250", n)
	}
	alice.waitFor("the jump to the newest button", `!!document.querySelector(".jump-present")`)

	t.Log("jump to the fifth message: it is in sight and focused, the channel's start above it")
	fifth := msgs[4]
	alice.run(chromedp.Navigate(srv.URL + "/app/#/c/" + long + "/m/" + fifth.GetId()))
	alice.waitFor("the fifth message in sight and focused", fmt.Sprintf(`document.activeElement?.dataset.id === %s && document.activeElement.querySelector(".msg-text").textContent === %s`, js(fifth.GetId()), js(fifth.GetText())))
	alice.waitFor("the channel's start", `document.querySelector(".channel-intro h3")?.textContent === "Welcome to #long"`)

	t.Log("scroll down: newer pages load below, the window stays at 250")
	const lastID = `document.querySelector(".channel-view .message-list > article.msg:last-of-type").dataset.id`
	for range 7 {
		before := eval[string](alice, lastID)
		alice.eval0(scroller + `.scrollTop = ` + scroller + `.scrollHeight`)
		alice.waitFor("a newer page", lastID+` !== `+js(before)+` && !document.querySelector(".message-list[aria-busy=true]")`)
		if n := eval[int](alice, count); n > 250 {
			t.Fatalf("the page holds %d messages; the window is 250", n)
		}
	}
	if eval[bool](alice, `!!document.querySelector(".channel-intro")`) {
		t.Error("the channel's start is still on the page after scrolling 350 messages down")
	}

	t.Log("back to the newest, and a new message arrives at the bottom")
	alice.click(".jump-present")
	alice.seesOnce(last)
	alice.waitFor("no jump button at the live end", `!document.querySelector(".jump-present")`)
	if _, err := bot.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: long, Text: "the newest of all"})); err != nil {
		t.Fatal(err)
	}
	alice.seesOnce("the newest of all")
	alice.waitFor("the list at its bottom", scroller+`.scrollHeight - `+scroller+`.scrollTop - `+scroller+`.clientHeight < 2`)
	alice.noErrors(srv.URL)
}

// fillChannel sends n numbered messages as c, 16 at a time, and returns them in the channel's
// order (which the concurrent sends mix a little).
func fillChannel(t *testing.T, c *webtest.Client, channelID string, n int) []*svcv1.Message {
	t.Helper()
	return fillChannelWith(t, c, channelID, n, "message %05d")
}

// fillChannelWith is fillChannel with the messages' text made by format from their number.
func fillChannelWith(t *testing.T, c *webtest.Client, channelID string, n int, format string) []*svcv1.Message {
	t.Helper()
	msgs := make([]*svcv1.Message, n)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				res, err := c.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: channelID, Text: fmt.Sprintf(format, i+1)}))
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					continue
				}
				msgs[i] = res.Msg.GetMessage()
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	sort.Slice(msgs, func(i, j int) bool { return msgs[i].GetCreatedSeq() < msgs[j].GetCreatedSeq() })
	return msgs
}
