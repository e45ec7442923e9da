package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine/mail/mailtest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// sideLinkJS finds a channel's link in the sidebar.
func sideLinkJS(id string) string {
	return fmt.Sprintf(`document.querySelector(%s)`, js(`.side-link[data-channel="`+id+`"]`))
}

// bellJS is the notifications bell in the open channel's header.
const bellJS = `document.querySelector(".channel-view .notify-button")`

// menuItemJS finds an item of the open notifications menu by its text.
func menuItemJS(text string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(".notify-menu [role^=menuitem]")].find(b => b.textContent.trim() === %s)`, js(text))
}

// chooseInMenu opens the bell's menu and picks an item.
func (p *page) chooseInMenu(item string) {
	p.t.Helper()
	p.clickJS("the bell", bellJS)
	p.waitFor("the menu", `!!document.querySelector(".notify-menu")`)
	p.clickJS(item, menuItemJS(item))
	p.waitFor("the menu closed", `!document.querySelector(".notify-menu")`)
}

// checkedInMenu is the level the bell's menu shows checked (the menu is opened and closed).
func (p *page) checkedInMenu() string {
	p.t.Helper()
	p.clickJS("the bell", bellJS)
	p.waitFor("the menu", `!!document.querySelector(".notify-menu")`)
	got := eval[string](p, `[...document.querySelectorAll('.notify-menu [aria-checked="true"]')].map(b => b.textContent.trim()).join()`)
	p.run(press("Escape", 27, "", 0))
	p.waitFor("the menu closed", `!document.querySelector(".notify-menu")`)
	return got
}

// channelPref is the server's entry of a channel in c's preferences (nil when it has none).
func channelPref(t *testing.T, srv *webtest.Server, c *webtest.Client, channelID string) *svcv1.ChannelNotificationPrefs {
	t.Helper()
	for _, ch := range prefsOf(t, srv, c).GetChannels() {
		if ch.GetChannelId() == channelID {
			return ch
		}
	}
	return nil
}

// TestBrowserChannelNotificationMenu: a channel's bell sets what it notifies the person about
// and mutes it, for an hour, eight hours or until unmuted; the server stores each change, the
// sidebar shows a muted channel muted, and the person's other device (a phone) follows every
// change live, and changes it back. The menu works from the keyboard.
func TestBrowserChannelNotificationMenu(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	general := ids["general"]
	laptop := openPage(t, browser, "olivia's laptop", 1280, 800)
	laptop.signIn(srv, "olivia")
	laptop.openChannel("general")
	phone := openPage(t, browser, "olivia's phone", 390, 844)
	phone.signIn(srv, "olivia")
	phone.waitFor("the chat", `!!document.querySelector(".chat")`)
	phone.eval0(`location.hash = "#/c/` + general + `"`)
	phone.waitFor("#general", `document.querySelector(".channel-title")?.textContent.endsWith("general")`)

	if got := laptop.checkedInMenu(); got != "Default (mentions)" {
		t.Fatalf("a channel never set: %q checked", got)
	}
	laptop.clickJS("the bell", bellJS)
	laptop.waitFor("the menu", `!!document.querySelector(".notify-menu")`)
	laptop.allNamed("the notifications menu")
	laptop.run(press("Escape", 27, "", 0))
	laptop.waitFor("the menu closed", `!document.querySelector(".notify-menu")`)

	t.Log("muted for an hour, on the laptop")
	before := time.Now()
	laptop.chooseInMenu("Mute for 1 hour")
	laptop.waitFor("#general muted in the sidebar", ``+sideLinkJS(general)+`.getAttribute("aria-label").endsWith("notifications muted")`)
	laptop.waitFor("the bell says so", bellJS+`.getAttribute("aria-label").startsWith("Notifications of #general: muted until ")`)
	waitUntil(t, "the mute stored", func() bool { return channelPref(t, srv, owner, general).GetMutedUntilMs() > 0 })
	until := time.UnixMilli(channelPref(t, srv, owner, general).GetMutedUntilMs())
	if until.Before(before.Add(time.Hour-time.Minute)) || until.After(time.Now().Add(time.Hour+time.Minute)) {
		t.Fatalf("muted until %s, want an hour from %s", until, before)
	}
	phone.waitFor("the phone's sidebar shows it muted", ``+sideLinkJS(general)+`.classList.contains("side-muted")`)

	t.Log("everything, from the phone; the laptop follows")
	phone.chooseInMenu("Everything")
	waitUntil(t, "level ALL stored", func() bool {
		return channelPref(t, srv, owner, general).GetLevel() == svcv1.NotifyLevel_NOTIFY_LEVEL_ALL
	})
	if p := channelPref(t, srv, owner, general); p.GetMutedUntilMs() != until.UnixMilli() {
		t.Errorf("the level's change changed the mute: %v", p)
	}
	laptop.waitFor("the laptop's menu follows", `(document.querySelector(".notify-menu") || `+bellJS+`.click(), [...document.querySelectorAll('.notify-menu [aria-checked="true"]')].map(b => b.textContent.trim()).join() === "Everything")`)
	laptop.run(press("Escape", 27, "", 0))
	laptop.waitFor("the menu closed, the focus on the bell", `!document.querySelector(".notify-menu") && document.activeElement === `+bellJS)

	t.Log("unmuted from the laptop's keyboard")
	laptop.run(enter())
	laptop.waitFor("the menu, the checked level focused", `document.activeElement?.getAttribute("aria-checked") === "true"`)
	for !eval[bool](laptop, `document.activeElement?.textContent.trim() === "Unmute"`) {
		laptop.run(press("ArrowDown", 40, "", 0))
	}
	laptop.run(enter())
	laptop.waitFor("not muted in the sidebar", `!`+sideLinkJS(general)+`.classList.contains("side-muted")`)
	phone.waitFor("nor on the phone", `!`+sideLinkJS(general)+`.classList.contains("side-muted")`)
	waitUntil(t, "the mute gone", func() bool {
		p := channelPref(t, srv, owner, general)
		return p.GetMutedUntilMs() == 0 && p.GetLevel() == svcv1.NotifyLevel_NOTIFY_LEVEL_ALL
	})

	t.Log("muted until unmuted; then back to the default, which drops the entry")
	phone.chooseInMenu("Mute until I unmute")
	waitUntil(t, "muted for good", func() bool { return channelPref(t, srv, owner, general).GetMutedUntilMs() == -1 })
	laptop.waitFor("the laptop's bell", bellJS+`.getAttribute("aria-label") === "Notifications of #general: muted until you unmute"`)
	laptop.chooseInMenu("Unmute")
	laptop.chooseInMenu("Default (mentions)")
	waitUntil(t, "no entry for #general", func() bool { return channelPref(t, srv, owner, general) == nil })
	phone.waitFor("the phone's menu follows", `(document.querySelector(".notify-menu") || `+bellJS+`.click(), [...document.querySelectorAll('.notify-menu [aria-checked="true"]')].map(b => b.textContent.trim()).join() === "Default (mentions)")`)

	t.Log("the settings, from the menu: no email switch on a server that sends no mail")
	laptop.chooseInMenu("Notification settings")
	laptop.waitFor("the settings", `location.hash === "#/settings/notifications" && !!document.querySelector(".notify-page input[type=radio]")`)
	if eval[bool](laptop, `[...document.querySelectorAll(".notify-page label.check")].some(l => l.textContent.includes("Email"))`) {
		t.Error("an email switch on a server without mail")
	}
	laptop.noErrors(srv.URL)
	phone.noErrors(srv.URL)
}

// TestBrowserNotificationSettings: the settings page (#/settings/notifications, as the digest
// emails link it) sets the person's level, hidden content and the email digest (shown where the
// server sends mail, with the address), lists the channels with settings of their own (reset
// back to the default there) and the devices that get notifications, which can be removed.
func TestBrowserNotificationSettings(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	ms := mailtest.Start(t, mailtest.Options{})
	srv := webtest.StartConfig(t, webtest.WithMail(ms), webtest.WithPushAllowPrivate())
	ctx := context.Background()
	owner := srv.Join("olivia")
	srv.SetVerifiedEmail(t, "olivia", "olivia@example.org")
	res, err := owner.Chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	general := res.Msg.GetChannel().GetId()
	notify := notifyOf(srv, owner)
	for _, name := range []string{"Firefox on Android", "Safari on iPhone"} {
		stub := newPushStub(t, "http://127.0.0.1:9/push/"+name[:3])
		if _, err := notify.AddPushSubscription(ctx, connect.NewRequest(&svcv1.AddPushSubscriptionRequest{Endpoint: stub.endpoint, P256Dh: stub.p256dh, Auth: stub.auth, DeviceName: name})); err != nil {
			t.Fatal(err)
		}
	}

	p := openPage(t, browser, "olivia", 1280, 800)
	p.signIn(srv, "olivia")
	p.openChannel("general")
	p.click(".me-button")
	p.clickJS("Notification settings", `[...document.querySelectorAll("dialog[open] a")].find(a => a.textContent === "Notification settings")`)
	p.waitFor("the settings page", `location.hash === "#/settings/notifications" && !document.querySelector("dialog[open]") && !!document.querySelector(".notify-page input[type=radio]:checked")`)
	p.allNamed("the notification settings")
	radio := func(text string) string {
		return fmt.Sprintf(`[...document.querySelectorAll(".notify-page .radio-list label")].find(l => l.textContent.startsWith(%s)).querySelector("input")`, js(text))
	}
	check := func(text string) string {
		return fmt.Sprintf(`[...document.querySelectorAll(".notify-page label.check")].find(l => l.textContent.startsWith(%s)).querySelector("input")`, js(text))
	}
	if !eval[bool](p, radio("Mentions")+".checked") {
		t.Fatal("the default level is not Mentions")
	}

	p.clickJS("Everything", radio("Everything"))
	waitUntil(t, "level ALL", func() bool { return prefsOf(t, srv, owner).GetLevel() == svcv1.NotifyLevel_NOTIFY_LEVEL_ALL })
	p.waitFor("saved", `document.querySelector(".notify-page .ok-row")?.textContent === "Saved."`)
	p.clickJS("hide content", check("Hide the text"))
	waitUntil(t, "hide_content", func() bool { return prefsOf(t, srv, owner).GetHideContent() })
	p.waitFor("the email switch, and where the emails go", `document.querySelector(".notify-page")?.textContent.includes("Emails go to olivia@example.org.")`)
	// The switches wait while a change is on its way (the server has it before its answer comes).
	p.waitFor("hide content saved", `!`+check("Email me")+`.disabled`)
	p.clickJS("email", check("Email me"))
	waitUntil(t, "email on", func() bool { return prefsOf(t, srv, owner).GetEmail() })
	if got := prefsOf(t, srv, owner); got.GetLevel() != svcv1.NotifyLevel_NOTIFY_LEVEL_ALL || !got.GetHideContent() {
		t.Fatalf("one change undid another: %v", got)
	}

	t.Log("a channel muted elsewhere shows here, and is reset here")
	if _, err := notify.SetNotificationPrefs(ctx, connect.NewRequest(&svcv1.SetNotificationPrefsRequest{Prefs: &svcv1.NotificationPrefs{
		Level: svcv1.NotifyLevel_NOTIFY_LEVEL_ALL, HideContent: true, Email: true,
		Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: general, Level: svcv1.NotifyLevel_NOTIFY_LEVEL_NONE, MutedUntilMs: -1}},
	}})); err != nil {
		t.Fatal(err)
	}
	p.waitFor("#general's own settings", `document.querySelector(".channel-pref")?.textContent === "#generalNothing, muted until you unmuteReset"`)
	p.clickJS("Reset", buttonJS(".channel-pref", "Reset"))
	p.waitFor("no channel of its own", `!document.querySelector(".channel-pref")`)
	waitUntil(t, "the entry gone", func() bool { return len(prefsOf(t, srv, owner).GetChannels()) == 0 })

	t.Log("the devices, one removed")
	p.waitFor("two devices", `[...document.querySelectorAll(".device-item .device-name")].map(e => e.textContent).join() === "Firefox on Android,Safari on iPhone"`)
	p.clickJS("Remove Safari", `document.querySelector('.device-item button[aria-label="Remove Safari on iPhone"]')`)
	p.waitFor("one device", `[...document.querySelectorAll(".device-item .device-name")].map(e => e.textContent).join() === "Firefox on Android"`)
	if d := devicesOf(t, srv, owner); len(d) != 1 || d[0].GetDeviceName() != "Firefox on Android" {
		t.Fatalf("the server's devices: %v", d)
	}
	p.noErrors(srv.URL)
}
