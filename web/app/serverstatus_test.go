package app_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	"hearth/engine/diskspace"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// testDisk is a server's data disk, as full as the test says.
type testDisk struct {
	mu sync.Mutex
	sp diskspace.Space
}

func (d *testDisk) statfs(string) (diskspace.Space, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sp, nil
}

func (d *testDisk) setFree(n uint64) {
	d.mu.Lock()
	d.sp.Free = n
	d.mu.Unlock()
}

// startOnTestDisk starts a server whose data disk is disk (the default margin: 64 MiB).
func startOnTestDisk(t *testing.T, disk *testDisk, options ...webtest.Option) *webtest.Server {
	return webtest.StartConfig(t, func(c *web.Config) { c.Disk = diskspace.Options{Statfs: disk.statfs} }, options...)
}

// textChannels has c make text channels, and returns their ids by name.
func textChannels(t *testing.T, c *webtest.Client, names ...string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, name := range names {
		res, err := c.Chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{Name: name, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = res.Msg.GetChannel().GetId()
	}
	return ids
}

// sizeText is lib/upload.ts's formatSize, for the figures the status screen shows.
func sizeText(n int64) string {
	f := float64(n)
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " B"
	case n < 10_000:
		return fmt.Sprintf("%.1f kB", f/1e3)
	case n < 1_000_000:
		return fmt.Sprintf("%.0f kB", f/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1f MB", f/1e6)
	case n < 1_000_000_000_000:
		return fmt.Sprintf("%.1f GB", f/1e9)
	}
	return fmt.Sprintf("%.1f TB", f/1e12)
}

// statJS is the text of the status screen's figure named name.
func statJS(name string) string {
	return fmt.Sprintf(`document.querySelector('.status-page [data-stat=%s]')?.textContent`, js(name))
}

// TestBrowserServerStatus: an admin opens the status screen from the community's pages and sees
// what GetServerStatus answers: the version, the members and how many were active, messages a
// day, the storage, the last backup and the free disk, with a warning as it nears full; Refresh
// loads it again. A member has no such page.
func TestBrowserServerStatus(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	disk := &testDisk{sp: diskspace.Space{Free: 300 << 20, Total: 1 << 30}}
	srv := startOnTestDisk(t, disk)
	ctx := context.Background()
	owner := srv.Join("olivia")
	bob := srv.Join("bob")
	srv.CreateBot(owner, "helper")
	general := textChannels(t, owner, "general")["general"]
	for i := range 5 {
		c := owner
		if i%2 == 1 {
			c = bob
		}
		if _, err := c.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: general, Text: fmt.Sprintf("message %d", i)})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.App().Backups.Run(ctx); err != nil {
		t.Fatal(err)
	}
	status := func() *svcv1.GetServerStatusResponse {
		t.Helper()
		res, err := owner.Server.GetServerStatus(ctx, connect.NewRequest(&svcv1.GetServerStatusRequest{Days: 30}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg
	}

	p := openPage(t, browser, "olivia", 1280, 800)
	p.signIn(srv, "olivia")
	p.click(".community-link")
	p.clickJS("the Status tab", `[...document.querySelectorAll(".community-tab")].find(a => a.textContent === "Status")`)
	p.waitFor("the status", statJS("members")+` !== undefined && location.hash === "#/community/status"`)
	p.allNamed("the status screen")
	check := func(s *svcv1.GetServerStatusResponse) {
		t.Helper()
		st := s.GetStorage()
		var total int64
		for _, d := range s.GetMessagesPerDay() {
			total += d.GetMessages()
		}
		want := map[string]string{
			"version":        s.GetServerVersion(),
			"members":        strconv.Itoa(int(s.GetMembers())),
			"active-today":   strconv.Itoa(int(s.GetActiveToday())),
			"active-week":    strconv.Itoa(int(s.GetActiveWeek())),
			"bots":           strconv.Itoa(int(s.GetBots())),
			"messages-today": strconv.FormatInt(s.GetMessagesPerDay()[len(s.GetMessagesPerDay())-1].GetMessages(), 10),
			"messages-total": strconv.FormatInt(total, 10),
			"database":       sizeText(st.GetDatabaseBytes()),
			"bucket":         sizeText(st.GetFilesBytes() + st.GetEmojiBytes() + st.GetPreviewBytes()),
			"files":          sizeText(st.GetFilesBytes()),
			"disk-free":      sizeText(s.GetDisk().GetFreeBytes()),
		}
		for name, v := range want {
			if got := eval[string](p, statJS(name)); got != v {
				t.Errorf("%s shows %q, GetServerStatus says %q", name, got, v)
			}
		}
		bars := eval[string](p, `[...document.querySelectorAll(".status-page .bar")].map(b => b.dataset.day + "=" + b.dataset.messages).join(" ")`)
		var days string
		for i, d := range s.GetMessagesPerDay() {
			if i > 0 {
				days += " "
			}
			days += d.GetDay() + "=" + strconv.FormatInt(d.GetMessages(), 10)
		}
		if bars != days {
			t.Errorf("the chart: %s\nGetServerStatus: %s", bars, days)
		}
	}
	s := status()
	if s.GetMembers() != 2 || s.GetBots() != 1 || s.GetActiveToday() != 2 || s.GetMessagesPerDay()[29].GetMessages() != 5 || len(s.GetMessagesPerDay()) != 30 {
		t.Fatalf("GetServerStatus: %v", s)
	}
	check(s)
	if got := eval[string](p, statJS("backup")); !strings.Contains(got, "✓ Succeeded") || !strings.Contains(got, s.GetLastBackup().GetLocation()) {
		t.Errorf("the backup: %q", got)
	}
	if got := eval[string](p, statJS("disk-note")); got != "Writes stop below 67.1 MB free, before the disk fills." {
		t.Errorf("the disk's note: %q", got)
	}

	t.Log("more messages, less room: Refresh shows them")
	for i := range 3 {
		if _, err := bob.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: general, Text: fmt.Sprintf("more %d", i)})); err != nil {
			t.Fatal(err)
		}
	}
	disk.setFree(100 << 20)
	p.clickJS("Refresh", buttonJS(".status-head", "Refresh"))
	p.waitFor("the new count", statJS("messages-today")+` === "8"`)
	check(status())
	p.waitFor("the warning", statJS("disk-note")+`.startsWith("The disk is nearly full")`)

	t.Log("a member: no Status tab, and its address shows the members")
	m := openPage(t, browser, "bob", 1280, 800)
	m.signIn(srv, "bob")
	m.waitFor("the chat", `!!document.querySelector(".chat")`)
	m.eval0(`location.hash = "#/community/status"`)
	m.waitFor("the members page", `!!document.querySelector(".member-list")`)
	if eval[bool](m, `!!document.querySelector(".status-page") || [...document.querySelectorAll(".community-tab")].some(a => a.textContent === "Status")`) {
		t.Error("a member is shown the server's status")
	}
	p.noErrors(srv.URL)
	m.noErrors(srv.URL)
}

// TestBrowserDiskFullNotice: while the server's disk is full, an upload (507) and a message
// (resource_exhausted) are refused: everyone is told at the top of the page, the message waits
// in its place with the server's words, and reading goes on. Once space is freed, the message
// goes by itself and the notice leaves.
func TestBrowserDiskFullNotice(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	disk := &testDisk{sp: diskspace.Space{Free: 500 << 20, Total: 1 << 30}}
	srv := startOnTestDisk(t, disk)
	ctx := context.Background()
	owner := srv.Join("olivia")
	bob := srv.Join("bob")
	rename(t, bob, "Bob", "", "")
	ids := textChannels(t, owner, "general", "random")
	if _, err := owner.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["random"], Text: "written before"})); err != nil {
		t.Fatal(err)
	}
	p := openPage(t, browser, "bob", 1280, 800)
	p.signIn(srv, "bob")
	p.openChannel("general")
	const banner = `document.querySelector(".disk-banner")`

	disk.setFree(10 << 20)
	t.Log("an upload refused")
	p.run(chromedp.SetUploadFiles(chromedp.CSS(".channel-view input[type=file]"), []string{writePNG(t, "photo.png", 40, 30)}))
	p.waitFor("the notice", banner+`?.textContent.startsWith("The server’s disk is full.")`)
	p.waitFor("the upload's error", `document.querySelector(".channel-view .upload")?.textContent.includes("the server's disk is full")`)
	if eval[bool](p, banner+`.textContent.includes("Server status")`) {
		t.Error("a member is sent to the status screen")
	}
	p.allNamed("the disk's notice")

	t.Log("a message refused; it waits, and reading goes on")
	p.run(chromedp.Reload())
	p.openChannel("general")
	if eval[bool](p, "!!"+banner) {
		t.Fatal("the notice before anything was refused")
	}
	p.send("are you there?")
	p.waitFor("the notice", "!!"+banner)
	p.waitFor("the message waiting with the server's words", `[...document.querySelectorAll(".channel-view article.msg-pending")].some(m => m.textContent.includes("are you there?") && m.textContent.includes("the server's disk is full"))`)
	p.openChannel("random")
	p.seesOnce("written before")

	t.Log("space freed: the message goes, the notice leaves")
	disk.setFree(500 << 20)
	p.waitFor("the notice gone", "!"+banner)
	p.openChannel("general")
	p.seesOnce("are you there?")
	p.noErrors(srv.URL)

	t.Log("an admin is shown the way to the status screen, which says the disk is full")
	disk.setFree(10 << 20)
	o := openPage(t, browser, "olivia", 1280, 800)
	o.signIn(srv, "olivia")
	o.openChannel("general")
	o.send("hello?")
	o.waitFor("the notice", banner+`?.textContent.includes("Server status")`)
	o.clickJS("Server status", `[...document.querySelectorAll(".disk-banner a")].find(a => a.textContent === "Server status")`)
	o.waitFor("the disk full on the status screen", statJS("disk-note")+`?.startsWith("The disk is full")`)
}

// TestBrowserNotifyAndStatusContrast: the texts of the new screens read at 4.5:1 or better in
// both themes: the banners (notifications, a full disk), a muted channel in the sidebar, a
// channel's notifications menu, the notification settings, a reset link and the status screen.
func TestBrowserNotifyAndStatusContrast(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	disk := &testDisk{sp: diskspace.Space{Free: 100 << 20, Total: 1 << 30}}
	srv := startOnTestDisk(t, disk)
	ctx := context.Background()
	owner := srv.Join("olivia")
	srv.SignUp(t, "bob", "the first password", nil)
	ids := textChannels(t, owner, "general", "random")
	if _, err := notifyOf(srv, owner).SetNotificationPrefs(ctx, connect.NewRequest(&svcv1.SetNotificationPrefsRequest{Prefs: &svcv1.NotificationPrefs{
		Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: ids["random"], MutedUntilMs: -1}, {ChannelId: ids["general"], MutedUntilMs: -1}},
	}})); err != nil {
		t.Fatal(err)
	}
	p := openPage(t, browser, "olivia", 1280, 800)
	p.signIn(srv, "olivia")
	p.openChannel("general")
	p.send("hello")
	p.waitFor("the banner", "!!"+bannerJS)
	// Each check reads the new screen's own texts (what is around it is the other tests').
	check := func(where string, roots ...string) {
		t.Helper()
		for _, theme := range []string{"light", "dark"} {
			dark(t, p, theme == "dark")
			p.waitFor("the "+theme+" theme", `matchMedia("(prefers-color-scheme: dark)").matches === `+map[string]string{"light": "false", "dark": "true"}[theme])
			for _, root := range roots {
				const whole = `document.querySelector("dialog[open]") ?? document.body`
				if !strings.Contains(lowContrastJS, whole) {
					t.Fatal("lowContrastJS no longer reads from the open dialog or the body")
				}
				p.waitFor(root, fmt.Sprintf(`!!document.querySelector(%s)`, js(root)))
				for i := range eval[int](p, fmt.Sprintf(`document.querySelectorAll(%s).length`, js(root))) {
					scoped := strings.Replace(lowContrastJS, whole, fmt.Sprintf(`document.querySelectorAll(%s)[%d]`, js(root), i), 1)
					if low := eval[string](p, scoped); low != "" {
						t.Errorf("%s, %s theme: text below 4.5:1:\n%s", where, theme, strings.TrimSpace(low))
					}
				}
			}
		}
	}
	check("the banner and muted channels", ".push-banner", ".side-link.side-muted")
	p.clickJS("the bell", bellJS)
	p.waitFor("the menu", `!!document.querySelector(".notify-menu")`)
	check("the menu", ".notify-menu")
	p.run(press("Escape", 27, "", 0))
	p.eval0(`location.hash = "#/settings/notifications"`)
	p.waitFor("the settings", `document.querySelectorAll(".channel-pref").length === 2`)
	check("the settings", ".notify-page")
	p.cardOf("bob")
	p.clickJS("Reset password", resetButtonJS)
	p.waitFor("the link", `!!document.querySelector("dialog[open] .reset-box")`)
	check("the reset link", ".reset-box")
	p.closeDialog()
	p.eval0(`location.hash = "#/community/status"`)
	p.waitFor("the status", statJS("disk-note")+`?.startsWith("The disk is nearly full")`)
	check("the status", ".status-page")
	disk.setFree(1 << 20)
	p.openChannel("general")
	p.send("full?")
	p.waitFor("the disk's notice", `!!document.querySelector(".disk-banner")`)
	check("the disk's notice", ".disk-banner")
}
