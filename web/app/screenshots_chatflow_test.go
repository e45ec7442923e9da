package app_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestChatFlowScreenshots writes the screenshots of the chat's flow (docs/screenshots/flow-*.png):
// the "New messages" divider and the jumps, the member list, the thread inbox, the keyboard
// shortcuts and the banner of a lost connection; on a desktop and a phone, light and dark; when
// HEARTH_SCREENSHOTS names the folder:
//
//	HEARTH_SCREENSHOTS=$PWD/docs/screenshots go test ./web/app -run TestChatFlowScreenshots
func TestChatFlowScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		t.Skip("HEARTH_SCREENSHOTS is not set")
	}
	browser := startBrowser(t)
	srv := webtest.Start(t)
	g, people := newGarden(t, srv, [2]string{"sam", "Sam Okafor"}, [2]string{"ines", "Inês Duarte"}, [2]string{"lee", "Lee Park"}, [2]string{"ana", "Ana Costa"})
	owner, channel := g.owner, g.channel
	general := channel("general", "", "Everything about the garden, and then some")
	channel("announcements", "", "News from the committee")
	tomatoes := channel("tomatoes", "Growing", "Forty varieties and counting")
	channel("seed-swap", "Growing", "Offer and ask for seeds")
	sam, ines, lee, ana := people["sam"], people["ines"], people["lee"], people["ana"]
	rename(t, sam, "Sam Okafor", "🌱", "Seedlings in the greenhouse")
	rename(t, ines, "Inês Duarte", "🍅", "Tomato duty")
	// Sam and Inês online, Lee away, Ana offline.
	for _, c := range []*webtest.Client{sam, ines, lee} {
		st := c.Subscribe(t, srv.Engine.Seq())
		t.Cleanup(st.Close)
	}
	if _, err := lee.Chat.SetPresence(t.Context(), connect.NewRequest(&svcv1.SetPresenceRequest{Presence: svcv1.Presence_PRESENCE_AWAY})); err != nil {
		t.Fatal(err)
	}
	// Paced under the send rate limit (people send 5 a second).
	say := func(c *webtest.Client, ch, text, root string) *svcv1.Message {
		for {
			res, err := c.Chat.SendMessage(t.Context(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ch, Text: text, ThreadRootId: root}))
			if connect.CodeOf(err) == connect.CodeResourceExhausted {
				time.Sleep(250 * time.Millisecond)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			return res.Msg.GetMessage()
		}
	}

	// What Maya has read: the morning.
	say(owner, general, "Good morning everyone! The **spring planting day** is this Saturday at 9.", "")
	say(sam, general, "I'll bring the seedlings from the greenhouse.", "")
	plan := say(owner, general, "Who can bring a wheelbarrow?", "")
	say(lee, general, "Mine has a flat tyre, sorry", plan.GetId())
	curl := say(ines, tomatoes, "Why do my tomato leaves curl?", "")
	say(owner, tomatoes, "Heat stress, most likely: water in the morning", curl.GetId())

	maya := openPage(t, browser, "maya", 1280, 800)
	maya.signIn(srv, "maya")
	maya.waitFor("the chat", `!!document.querySelector(".chat")`)
	maya.openChannel("general")
	maya.seesOnce("I'll bring the seedlings from the greenhouse.")
	maya.openChannel("announcements")

	// While she is away: a long afternoon in #general, and replies in her threads.
	lines := []string{
		"The compost bins are full again, we need a second one",
		"I can build one from the old pallets behind the shed",
		"Bring gloves, those pallets have nails",
		"Has anyone seen the blue watering can?",
		"It's by the rain barrel, under the tarp",
		"The bees found the lavender this morning 🐝",
		"Reminder: the gate sticks, lift it a little when you close it",
		"Who planted the mystery squash in bed 4?",
		"Guilty. It was supposed to be courgettes",
		"The radishes are ready, help yourselves",
		"Slugs ate half my lettuce overnight",
		"Beer traps work, or copper tape around the bed",
	}
	authors := []*webtest.Client{sam, ines, lee, ana, sam, ines}
	for i := range 30 {
		say(authors[i%len(authors)], general, lines[i%len(lines)], "")
	}
	say(sam, general, "I'll bring a wheelbarrow after all, Lee can borrow it", plan.GetId())
	say(ines, tomatoes, "That worked, thank you! They look much better", curl.GetId())
	say(ana, tomatoes, "Same here, watering before work now", curl.GetId())

	type scene struct {
		name  string
		setup func(p *page)
	}
	scenes := []scene{
		{"divider", func(p *page) {
			p.openChannel("general")
			p.waitFor("the divider and the jump", `!!document.querySelector(".channel-view .new-divider") && !!document.querySelector(".channel-view .jump-present")`)
		}},
		{"threads", func(p *page) {
			p.clickJS("Threads", `document.querySelector(".sidebar .threads-link")`)
			p.waitFor("the threads", `document.querySelectorAll(".thread-inbox .thread-row").length === 2`)
		}},
		{"members", func(p *page) {
			p.openChannel("general")
			p.eval0(channelScroller + `.scrollTop = ` + channelScroller + `.scrollHeight`)
			p.click(".channel-view .members-toggle")
			p.waitFor("the member list", `document.querySelectorAll(".people-panel .people-row").length === 5`)
		}},
		{"shortcuts", func(p *page) {
			p.openChannel("general")
			p.run(press("/", 191, "", 2))
			p.waitFor("the list", `!!document.querySelector('dialog[open][aria-label="Keyboard shortcuts"]')`)
		}},
		{"outage", func(p *page) {
			p.openChannel("general")
			p.eval0(channelScroller + `.scrollTop = ` + channelScroller + `.scrollHeight`)
			if !eval[bool](p, `!!document.querySelector(".people-panel")`) && eval[bool](p, `matchMedia("(min-width: 761px)").matches`) {
				p.click(".channel-view .members-toggle")
			}
			p.cutStream(srv, true)
			srv.Restart()
			p.waitFor("the banner", `!!document.querySelector(".outage")`)
		}},
	}
	phone := openTab(t, maya, "maya on a phone", 390, 844)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + general))
	phone.waitFor("the chat", `!!document.querySelector(".chat")`)
	for _, sc := range scenes {
		for _, p := range []*page{maya, phone} {
			size := ""
			if p == phone {
				size = "-phone"
			}
			// Each scene from the channel it starts in, the dialogs and panels closed.
			p.eval0(`document.querySelector("dialog[open]")?.close()`)
			if p == phone && eval[bool](p, `!!document.querySelector(".people-panel")`) {
				p.click(`.people-panel button[aria-label="Close the member list"]`)
			}
			sc.setup(p)
			shoot(t, p, filepath.Join(dir, fmt.Sprintf("flow-%s%s.png", sc.name, size)))
			dark(t, p, true)
			shoot(t, p, filepath.Join(dir, fmt.Sprintf("flow-%s%s-dark.png", sc.name, size)))
			dark(t, p, false)
		}
	}
}
