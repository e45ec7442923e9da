package app_test

import (
	"context"
	"image/color"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	"hearth/engine/diskspace"
	"hearth/engine/mail/mailtest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// TestNotifyScreenshots writes the screenshots of the notifications (the banner that asks, a
// channel's menu, the settings), a member's reset link, the server's status and the full-disk
// notice (docs/screenshots/*.png) when HEARTH_SCREENSHOTS names the folder:
//
//	HEARTH_SCREENSHOTS=$PWD/docs/screenshots go test ./web/app -run TestNotifyScreenshots
func TestNotifyScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		t.Skip("HEARTH_SCREENSHOTS is not set")
	}
	browser := startBrowser(t)
	ctx := context.Background()
	ms := mailtest.Start(t, mailtest.Options{})
	disk := &testDisk{sp: diskspace.Space{Free: 23_400_000_000, Total: 40_000_000_000}}
	// A month of the club's messages: the clock starts 29 days ago and comes to now.
	now := time.Now()
	clock := webtest.NewClockAt(now.Add(-29 * 24 * time.Hour))
	srv := webtest.StartConfig(t, func(c *web.Config) {
		webtest.WithMail(ms)(c)
		c.Disk = diskspace.Options{Statfs: disk.statfs}
	}, webtest.WithClock(clock), webtest.WithPushAllowPrivate())
	g, people := newGarden(t, srv, [2]string{"ines", "Inês Duarte"}, [2]string{"lee", "Lee Park"})
	srv.SetVerifiedEmail(t, "maya", "maya@example.org")
	tok := srv.SignUp(t, "sam", "a long enough password", url.Values{"display_name": {"Sam Okafor"}})
	sam := srv.Client(tok.AccessToken)
	general := g.channel("general", "", "Everything about the garden, and then some")
	g.channel("announcements", "", "News from the committee")
	tomatoes := g.channel("tomatoes", "Growing", "Forty varieties and counting")
	seeds := g.channel("seed-swap", "Growing", "Offer and ask for seeds")
	ines, lee := people["ines"], people["lee"]
	talk := []string{"Morning! Watering done.", "The compost is ready to turn.", "Who has the shed key?", "Seedlings are up 🌱", "Rain tomorrow, skip the hoses."}
	for d := 0; d < 30; d++ {
		clock.Set(now.Add(time.Duration(d-29) * 24 * time.Hour))
		n := (d*7+3)%11 + d/3
		if d%7 == 5 {
			n += 12 // the weekend's work day
		}
		for i := 0; i < n; i++ {
			c := []*webtest.Client{g.owner, ines, lee, sam}[i%4]
			g.say(c, []string{general, tomatoes, seeds}[i%3], talk[(d+i)%len(talk)], "")
		}
	}
	clock.Set(now)
	addEmoji(t, srv, g.owner.Token, "tomato", writeDisc(t, "tomato.png", color.RGBA{220, 60, 50, 255}))
	if _, err := srv.App().Backups.Run(ctx); err != nil {
		t.Fatal(err)
	}
	notify := notifyOf(srv, g.owner)
	for _, d := range []string{"Firefox on Android", "Safari on iPhone"} {
		stub := newPushStub(t, "http://127.0.0.1:9/push/"+d[:3])
		if _, err := notify.AddPushSubscription(ctx, connect.NewRequest(&svcv1.AddPushSubscriptionRequest{Endpoint: stub.endpoint, P256Dh: stub.p256dh, Auth: stub.auth, DeviceName: d})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := notify.SetNotificationPrefs(ctx, connect.NewRequest(&svcv1.SetNotificationPrefsRequest{Prefs: &svcv1.NotificationPrefs{
		Level: svcv1.NotifyLevel_NOTIFY_LEVEL_MENTIONS, Email: true,
		Channels: []*svcv1.ChannelNotificationPrefs{
			{ChannelId: general, Level: svcv1.NotifyLevel_NOTIFY_LEVEL_ALL},
			{ChannelId: seeds, MutedUntilMs: now.Add(8 * time.Hour).UnixMilli()},
		},
	}})); err != nil {
		t.Fatal(err)
	}

	maya := openPage(t, browser, "maya", 1280, 800)
	stub := newPushStub(t, "http://127.0.0.1:9/push/maya")
	stub.install(maya)
	maya.signIn(srv, "maya")
	maya.openChannel("general")
	maya.send("Planting day is on! Bring gloves 🧤")
	maya.waitFor("the banner", "!!"+bannerJS)
	shoot(t, maya, filepath.Join(dir, "notify-banner.png"))
	dark(t, maya, true)
	shoot(t, maya, filepath.Join(dir, "notify-banner-dark.png"))
	dark(t, maya, false)
	phone := openTab(t, maya, "maya on a phone", 390, 844)
	stub.install(phone)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + general))
	phone.waitFor("#general", `document.querySelectorAll(".channel-view article.msg").length > 3`)
	phone.send("On my way")
	phone.waitFor("the banner", "!!"+bannerJS)
	shoot(t, phone, filepath.Join(dir, "notify-banner-phone.png"))

	t.Log("the channel's menu")
	menu := func(p *page) {
		p.clickJS("the bell", bellJS)
		// The menu takes the focus; a mouse's click shows no ring on it.
		p.waitFor("the menu focused", `document.querySelector(".notify-menu")?.contains(document.activeElement)`)
		p.eval0(`document.activeElement.blur()`)
	}
	maya.grantNotifications(srv)
	maya.clickJS("Turn on notifications", buttonJS(".push-banner", "Turn on notifications"))
	maya.waitFor("the banner gone", "!"+bannerJS)
	menu(maya)
	shoot(t, maya, filepath.Join(dir, "notify-menu.png"))
	dark(t, maya, true)
	shoot(t, maya, filepath.Join(dir, "notify-menu-dark.png"))
	dark(t, maya, false)
	maya.run(press("Escape", 27, "", 0))
	phone.run(chromedp.Reload())
	phone.waitFor("#general", `document.querySelectorAll(".channel-view article.msg").length > 3`)
	menu(phone)
	shoot(t, phone, filepath.Join(dir, "notify-menu-phone.png"))

	t.Log("the settings")
	maya.eval0(`location.hash = "#/settings/notifications"`)
	maya.waitFor("the devices", `document.querySelectorAll(".device-item").length === 3 && document.querySelectorAll(".channel-pref").length === 2 && document.querySelector(".notify-page").textContent.includes("Emails go to")`)
	shoot(t, maya, filepath.Join(dir, "notify-settings.png"))
	dark(t, maya, true)
	shoot(t, maya, filepath.Join(dir, "notify-settings-dark.png"))
	dark(t, maya, false)
	phone.eval0(`location.hash = "#/settings/notifications"`)
	phone.waitFor("the devices", `document.querySelectorAll(".device-item").length === 3`)
	phone.eval0(`document.querySelector(".device-list").scrollIntoView({block: "end"})`)
	shoot(t, phone, filepath.Join(dir, "notify-settings-phone.png"))

	t.Log("a reset link")
	maya.cardOf("Sam Okafor")
	maya.clickJS("Reset password", resetButtonJS)
	maya.waitFor("the link", `!!document.querySelector("dialog[open] .reset-box")`)
	maya.eval0(`document.activeElement?.blur()`)
	shootDialog(t, maya, filepath.Join(dir, "reset-link.png"))
	dark(t, maya, true)
	shootDialog(t, maya, filepath.Join(dir, "reset-link-dark.png"))
	dark(t, maya, false)
	maya.closeDialog()
	phone.cardOf("Sam Okafor")
	phone.clickJS("Reset password", resetButtonJS)
	phone.waitFor("the link", `!!document.querySelector("dialog[open] .reset-box")`)
	phone.eval0(`document.activeElement?.blur()`)
	shootDialog(t, phone, filepath.Join(dir, "reset-link-phone.png"))
	phone.closeDialog()

	t.Log("the status")
	maya.eval0(`location.hash = "#/community/status"`)
	maya.waitFor("the status", statJS("members")+` !== undefined`)
	shoot(t, maya, filepath.Join(dir, "status.png"))
	dark(t, maya, true)
	shoot(t, maya, filepath.Join(dir, "status-dark.png"))
	dark(t, maya, false)
	phone.eval0(`location.hash = "#/community/status"`)
	phone.waitFor("the status", statJS("members")+` !== undefined`)
	shoot(t, phone, filepath.Join(dir, "status-phone.png"))

	t.Log("the disk full")
	disk.setFree(60 << 20)
	maya.openChannel("general")
	maya.send("Photos from today coming up")
	maya.waitFor("the notice", `!!document.querySelector(".disk-banner")`)
	shoot(t, maya, filepath.Join(dir, "disk-full.png"))
	phone.eval0(`location.hash = "#/community/status"`)
	phone.clickJS("Refresh", buttonJS(".status-head", "Refresh"))
	phone.waitFor("full", statJS("disk-note")+`?.startsWith("The disk is full")`)
	phone.eval0(`document.querySelector('.status-page [data-stat="disk-note"]').scrollIntoView()`)
	shoot(t, phone, filepath.Join(dir, "status-disk-full-phone.png"))
}
