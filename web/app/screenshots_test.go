package app_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestScreenshots writes the screenshots README links (docs/screenshots/*.png) when
// HEARTH_SCREENSHOTS names the folder to write them to:
//
//	HEARTH_SCREENSHOTS=$PWD/docs/screenshots go test ./web/app -run TestScreenshots
func TestScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		t.Skip("HEARTH_SCREENSHOTS is not set")
	}
	browser := startBrowser(t)
	srv := webtest.Start(t)
	ctx := context.Background()
	g, people := newGarden(t, srv, [2]string{"sam", "Sam Okafor"}, [2]string{"ines", "Inês Duarte"}, [2]string{"lee", "Lee Park"})
	owner, channel, say := g.owner, g.channel, g.say
	general := channel("general", "", "Everything about the garden, and then some")
	channel("announcements", "", "News from the committee")
	channel("tomatoes", "Growing", "Forty varieties and counting")
	seeds := channel("seed-swap", "Growing", "Offer and ask for seeds")
	channel("tools", "Growing", "")
	react := func(c *webtest.Client, m *svcv1.Message, emoji string) {
		if _, err := c.Chat.React(ctx, connect.NewRequest(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: emoji})); err != nil {
			t.Fatal(err)
		}
	}
	sam, ines, lee := people["sam"], people["ines"], people["lee"]
	say(owner, general, "Good morning everyone! The **spring planting day** is this Saturday at 9.", "")
	m := say(sam, general, "I'll bring the seedlings from the greenhouse. Anyone need *basil*?", "")
	react(owner, m, "🌱")
	react(ines, m, "🌱")
	react(lee, m, "🙌")
	q := say(ines, general, "Yes please! Also: does anyone know why my tomato leaves curl? Photos in #tomatoes", "")
	say(lee, general, "Usually heat stress or too much water, try `watering in the morning` only", q.GetId())
	say(sam, general, "Could also be aphids, check the underside of the leaves", q.GetId())
	say(owner, general, "Reminder for <@"+sam.Member.GetId()+">: the shed key is under the blue pot 🔑", "")
	say(lee, seeds, "Offering: Cherokee Purple, Sungold, Black Krim. DM me.", "")
	say(lee, general, "Notes from last week are up on the board: https://example.org/garden/notes", "")

	maya := openPage(t, browser, "maya", 1280, 800)
	maya.signIn(srv, "maya")
	maya.waitFor("the chat", `!!document.querySelector(".chat")`)
	// A DM with unread messages, and a mention in a channel, for the badges.
	dm, err := sam.Chat.OpenDM(ctx, connect.NewRequest(&svcv1.OpenDMRequest{MemberIds: []string{owner.Member.GetId()}}))
	if err != nil {
		t.Fatal(err)
	}
	say(sam, dm.Msg.GetChannel().GetId(), "Do you have a minute to talk about the compost bins?", "")
	say(lee, seeds, "<@"+owner.Member.GetId()+"> saving you some Sungold seeds!", "")
	maya.openChannel("general")
	picture := writePNG(t, "greenhouse.png", 800, 450)
	maya.run(chromedp.SetUploadFiles(chromedp.CSS(".channel-view input[type=file]"), []string{picture}))
	maya.waitFor("the upload done", `document.querySelector(".channel-view .upload .upload-status")?.textContent.endsWith("kB")`)
	maya.typeInto(".channel-view .composer .composer-input", "The greenhouse this morning ☀️")
	maya.run(enter())
	maya.waitFor("the image", `document.querySelector(".channel-view .att-image img")?.complete`)
	maya.clickJS("the thread", messageJS(".channel-view", "Yes please!")+`?.querySelector(".thread-link")`)
	maya.waitFor("the thread panel", `document.querySelectorAll(".thread-panel .message-list > article.msg").length === 2`)
	maya.typeInto(".thread-panel .composer .composer-input", "Thanks! I'll check for aphids")
	shoot(t, maya, filepath.Join(dir, "desktop.png"))

	dark(t, maya, true)
	shoot(t, maya, filepath.Join(dir, "desktop-dark.png"))
	dark(t, maya, false)

	phone := openTab(t, maya, "maya on a phone", 390, 844)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + general))
	phone.waitFor("#general", `document.querySelectorAll(".channel-view article.msg").length > 3`)
	shoot(t, phone, filepath.Join(dir, "phone.png"))
	phone.click(`.channel-view button.menu-button`)
	phone.waitFor("the drawer", `getComputedStyle(document.querySelector(".sidebar")).visibility === "visible"`)
	shoot(t, phone, filepath.Join(dir, "phone-drawer.png"))
}

func rename(t *testing.T, c *webtest.Client, name, emoji, status string) {
	t.Helper()
	req := &svcv1.UpdateProfileRequest{DisplayName: &name}
	if status != "" {
		req.StatusEmoji, req.StatusText = &emoji, &status
	}
	res, err := c.Server.UpdateProfile(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	c.Member = res.Msg.GetMember()
}

func shoot(t *testing.T, p *page, path string) {
	t.Helper()
	// Let transitions and image decoding settle into the picture.
	p.waitFor("the page to settle", `new Promise(r => requestAnimationFrame(() => setTimeout(() => r(true), 400)))`)
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func dark(t *testing.T, p *page, on bool) {
	t.Helper()
	value := "light"
	if on {
		value = "dark"
	}
	p.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: value}},
		})
		return err
	}))
}

// garden is the community the screenshots show: the Hearth Garden Club of Maya, its owner.
type garden struct {
	t     *testing.T
	owner *webtest.Client
}

// newGarden makes the club and its people (username, shown name), each with a shown name.
func newGarden(t *testing.T, srv *webtest.Server, people ...[2]string) (*garden, map[string]*webtest.Client) {
	t.Helper()
	g := &garden{t: t, owner: srv.Join("maya")}
	rename(t, g.owner, "Maya Lindqvist", "🌱", "Tending the garden")
	name := "Hearth Garden Club"
	if _, err := g.owner.Server.UpdateServerSettings(context.Background(), connect.NewRequest(&svcv1.UpdateServerSettingsRequest{Name: &name})); err != nil {
		t.Fatal(err)
	}
	clients := map[string]*webtest.Client{}
	for _, p := range people {
		c := srv.Join(p[0])
		rename(t, c, p[1], "", "")
		clients[p[0]] = c
	}
	return g, clients
}

// channel makes a text channel as the owner and returns its id.
func (g *garden) channel(name, category, topic string) string {
	g.t.Helper()
	res, err := g.owner.Chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{Name: name, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Category: category, Topic: topic}))
	if err != nil {
		g.t.Fatal(err)
	}
	return res.Msg.GetChannel().GetId()
}

// say sends text as c, in a thread when thread is a root's id.
func (g *garden) say(c *webtest.Client, channelID, text, thread string) *svcv1.Message {
	g.t.Helper()
	res, err := c.Chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: channelID, Text: text, ThreadRootId: thread}))
	if err != nil {
		g.t.Fatal(err)
	}
	return res.Msg.GetMessage()
}
