package app_test

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"hearth/cmd/hearth/importer"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The client's side of imports and exports (EXTENSIONS.md 9): the imported members marked
// wherever members are listed, an admin claiming them, and "Export my data".

// importTrips imports a small DiscordChatExporter export of #trips, written by Maria and Tom:
// Maria asks, Tom (👍 on her question) answers mentioning her, Maria answers with a 🚤 from both.
func importTrips(t *testing.T, srv *webtest.Server) {
	t.Helper()
	user := func(id, name, nick string) map[string]any {
		return map[string]any{"id": id, "name": name, "discriminator": "0000", "nickname": nick, "isBot": false, "avatarUrl": "https://cdn.discordapp.com/avatars/" + id + ".png"}
	}
	maria, tom := user("2001", "maria", "Maria"), user("2002", "tom", "Tom")
	msg := func(id, ts string, author map[string]any, content string) map[string]any {
		return map[string]any{
			"id": id, "type": "Default", "timestamp": ts, "timestampEdited": nil, "isPinned": false, "content": content, "author": author,
			"attachments": []any{}, "embeds": []any{}, "stickers": []any{}, "reactions": []any{}, "mentions": []any{}, "inlineEmojis": []any{},
		}
	}
	reaction := func(emoji, code string, users ...map[string]any) map[string]any {
		list := []any{}
		for _, u := range users {
			list = append(list, u)
		}
		return map[string]any{"emoji": map[string]any{"id": "", "name": emoji, "code": code, "isAnimated": false, "imageUrl": ""}, "count": len(users), "users": list}
	}
	ask := msg("3001", "2021-05-01T10:00:00.000+00:00", maria, "Who's coming to the lake?")
	ask["reactions"] = []any{reaction("👍", "thumbsup", tom)}
	answer := msg("3002", "2021-05-01T10:05:00.000+00:00", tom, "Me! Thanks @Maria")
	answer["mentions"] = []any{maria}
	boat := msg("3003", "2021-05-01T10:07:00.000+00:00", maria, "Great, I'll bring the boat")
	boat["reactions"] = []any{reaction("🚤", "speedboat", maria, tom)}
	export := map[string]any{
		"guild":     map[string]any{"id": "500", "name": "Friends", "iconUrl": ""},
		"channel":   map[string]any{"id": "900", "type": "GuildTextChat", "categoryId": "800", "category": "Old server", "name": "trips", "topic": "Where we go"},
		"dateRange": map[string]any{"after": nil, "before": nil}, "exportedAt": "2024-01-01T00:00:00+00:00",
		"messages": []any{ask, answer, boat}, "messageCount": 3,
	}
	b, err := json.Marshal(export)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "trips.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := importer.ImportDiscord(context.Background(), importer.NewClient(srv.Dir), []string{dir}, importer.DiscordOptions{}, io.Discard)
	if err != nil || sum.Added != 3 {
		t.Fatalf("the import: %+v %v", sum, err)
	}
}

// authorOfJS is the author shown on the message of #trips whose text starts with text (a message
// grouped under the one before shows none: the one before's).
func authorOfJS(text string) string {
	return fmt.Sprintf(`(() => { const all = [...document.querySelectorAll(".channel-view article.msg[data-id]")]; let i = all.indexOf(%s); while (i > 0 && !all[i].querySelector(".author")) i--; return all[i]?.querySelector(".author")?.textContent ?? ""; })()`, messageJS(".channel-view", text))
}

// reactionJS is the reaction button with emoji on the message whose text starts with text.
func reactionJS(text, emoji string) string {
	return fmt.Sprintf(`[...(%s?.querySelectorAll(".reaction") ?? [])].find(b => b.textContent.startsWith(%s))`, messageJS(".channel-view", text), js(emoji))
}

// memberRowsJS are the names on the members page, each with " (imported)" when marked so.
const memberRowsJS = `[...document.querySelectorAll(".member-row")].map(b => b.querySelector(".member-row-name").firstChild.textContent + (b.querySelector(".tag-imported") ? " (imported)" : "")).sort().join(", ")`

// TestBrowserClaimImportedMember: after an import, the imported Maria and Tom are marked on the
// members page, the member list and their cards; a member is offered no claim. The owner claims
// Maria for Bob (found by a search) and confirms: Maria leaves the lists, and her messages, the
// mention of her and her reactions are Bob's, on the owner's page and live on Bob's. Then the
// owner claims Tom as themselves with "This is me": Tom's 👍 is the owner's own reaction.
func TestBrowserClaimImportedMember(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	rename(t, srv.Join("bob"), "Bob", "", "")
	importTrips(t, srv)
	olivia := openPage(t, browser, "olivia", 1280, 800)
	bob := openPage(t, browser, "bob", 1280, 800)
	olivia.signIn(srv, "olivia")
	bob.signIn(srv, "bob")
	for _, p := range []*page{olivia, bob} {
		p.openChannel("trips")
		p.waitFor("the imported history", authorOfJS("Who's coming")+` === "Maria" && `+authorOfJS("Me! Thanks")+` === "Tom" && `+authorOfJS("Great, I'll bring")+` === "Maria"`)
	}
	if got := eval[string](olivia, messageJS(".channel-view", "Me! Thanks")+`.querySelector(".msg-text").textContent`); got != "Me! Thanks @Maria" {
		t.Fatalf("the mention of Maria: %q", got)
	}

	t.Log("the imported are marked: the member list, the members page, the card; no claim for a member")
	olivia.click(".channel-view .members-toggle")
	olivia.waitFor("Maria and Tom marked in the member list", `[...document.querySelectorAll(".people-row")].filter(b => b.querySelector(".tag-imported")).map(b => b.getAttribute("aria-label")).join("; ") === "Maria, imported, offline; Tom, imported, offline"`)
	olivia.click(".channel-view .members-toggle")
	bob.cardOf("Maria")
	bob.waitFor("the card's mark and note", `!!document.querySelector("dialog[open] .member-card-name .tag-imported") && document.querySelector("dialog[open] .member-card").textContent.includes("has no account here")`)
	if eval[bool](bob, "!!("+button("dialog[open]", "Claim…")+")") {
		t.Error("a member is offered to claim Maria")
	}
	bob.closeDialog()
	bob.openChannel("trips")
	olivia.eval0(`location.hash = "#/community/members"`)
	olivia.waitFor("the members page", `document.querySelectorAll(".member-row").length === 4`)
	if got := eval[string](olivia, memberRowsJS); got != "Bob, Maria (imported), Tom (imported), olivia" {
		t.Errorf("the members page: %s", got)
	}
	olivia.waitFor("the admins' note", `document.querySelector(".imported-note")?.textContent.startsWith("2 members came with an imported history")`)
	adminShotLightDark(t, olivia, "imports-members")
	olivia.contrastInBothThemes("the members page", "span.side-icon")
	dark(t, olivia, false)
	olivia.clickJS("Only imported members", `[...document.querySelectorAll(".imported-note label")].find(l => l.textContent.includes("Only imported members")).querySelector("input")`)
	olivia.waitFor("only the imported", memberRowsJS+` === "Maria (imported), Tom (imported)"`)

	t.Log("the owner claims Maria for Bob")
	olivia.cardOf("Maria")
	olivia.clickJS("Claim…", button("dialog[open]", "Claim…"))
	olivia.waitFor("the claim form", `document.querySelector("dialog[open] .claim-title")?.textContent === "Who is Maria here?" && document.activeElement === document.querySelector("dialog[open] .claim input[type=search]")`)
	olivia.allNamed("the claim form")
	if got := eval[string](olivia, `[...document.querySelectorAll("dialog[open] .claim-list .pick")].map(l => l.querySelector(".claim-name").textContent).join("; ")`); got != "Bob; olivia (you)" {
		t.Errorf("the members offered: %s (not the imported, nobody else)", got)
	}
	olivia.run(chromedp.KeyEvent("bo"))
	olivia.waitFor("Bob alone", `[...document.querySelectorAll("dialog[open] .claim-list .pick")].map(l => l.querySelector(".claim-name").textContent).join("; ") === "Bob"`)
	if !eval[bool](olivia, button("dialog[open]", "Continue")+".disabled") {
		t.Error("Continue before a member is picked")
	}
	olivia.clickJS("Bob", `document.querySelector("dialog[open] .claim-list input[type=radio]")`)
	adminShotLightDark(t, olivia, "imports-claim")
	olivia.contrastInBothThemes("the claim form", "")
	dark(t, olivia, false)
	olivia.clickJS("Continue", button("dialog[open]", "Continue"))
	olivia.waitFor("the question", `document.querySelector("dialog[open] .claim .confirm-question")?.textContent === "Give everything the imported Maria wrote and reacted with to Bob (@bob)? The imported Maria leaves the member list. This cannot be undone."`)
	adminShotLightDark(t, olivia, "imports-claim-confirm")
	olivia.clickJS("Yes, give to Bob", button("dialog[open]", "Yes, give to Bob"))
	olivia.waitFor("the card closed, a notice", `!document.querySelector("dialog[open]") && [...document.querySelectorAll("[data-notice]")].some(n => n.textContent.includes("The imported Maria's messages and reactions are Bob's now."))`)
	olivia.waitFor("Maria gone from the members page", memberRowsJS+` === "Tom (imported)"`)
	for _, p := range []*page{olivia, bob} {
		if p == olivia {
			p.openChannel("trips")
		}
		p.waitFor("Bob in Maria's place, live", authorOfJS("Who's coming")+` === "Bob" && `+authorOfJS("Great, I'll bring")+` === "Bob" && `+
			messageJS(".channel-view", "Me! Thanks")+`.querySelector(".msg-text").textContent === "Me! Thanks @Bob"`)
		p.waitFor("Bob's and Tom's 🚤", reactionJS("Great, I'll bring", "🚤")+`?.title === "Bob, Tom reacted with 🚤"`)
	}
	bob.waitFor("Bob's own 🚤", reactionJS("Great, I'll bring", "🚤")+`.getAttribute("aria-pressed") === "true"`)
	st := olivia.state(srv, "olivia")
	for _, m := range st.GetMembers() {
		if m.GetUsername() == "maria" {
			t.Errorf("Maria is still a member: %v", m)
		}
	}

	if dir := os.Getenv("HEARTH_SCREENSHOTS"); dir != "" {
		phone := openTab(t, olivia, "olivia on a phone", 390, 844)
		phone.run(chromedp.Navigate(srv.URL + "/app/#/community/members"))
		phone.waitFor("the members page", `document.querySelectorAll(".member-row").length === 3`)
		shoot(t, phone, filepath.Join(dir, "imports-members-phone.png"))
		phone.cardOf("Tom")
		phone.clickJS("Claim…", button("dialog[open]", "Claim…"))
		phone.waitFor("the claim form", `!!document.querySelector("dialog[open] .claim-list .pick")`)
		phone.eval0(`document.activeElement.blur()`)
		shoot(t, phone, filepath.Join(dir, "imports-claim-phone.png"))
		phone.closeDialog()
		phone.noErrors(srv.URL)
	}

	t.Log("This is me: the owner claims Tom")
	olivia.cardOf("Tom")
	olivia.clickJS("Claim…", button("dialog[open]", "Claim…"))
	olivia.clickJS("This is me", button("dialog[open]", "This is me"))
	olivia.waitFor("the question", `document.querySelector("dialog[open] .claim .confirm-question")?.textContent.startsWith("Give everything the imported Tom wrote and reacted with to you?")`)
	olivia.clickJS("Yes, this is me", button("dialog[open]", "Yes, this is me"))
	olivia.waitFor("a notice", `!document.querySelector("dialog[open]") && [...document.querySelectorAll("[data-notice]")].some(n => n.textContent.includes("The imported Tom's messages and reactions are yours now."))`)
	olivia.waitFor("no imported left", `document.querySelectorAll(".member-row").length === 2 && !document.querySelector(".imported-note")`)
	olivia.openChannel("trips")
	olivia.waitFor("the owner in Tom's place", authorOfJS("Me! Thanks")+` === "olivia" && `+reactionJS("Who's coming", "👍")+`?.getAttribute("aria-pressed") === "true"`)
	bob.waitFor("the owner in Tom's place, live", authorOfJS("Me! Thanks")+` === "olivia" && `+reactionJS("Great, I'll bring", "🚤")+`?.title === "Bob, olivia reacted with 🚤"`)
	olivia.noErrors(srv.URL)
	bob.noErrors(srv.URL)
}

// adminShotLightDark writes name.png and name-dark.png when HEARTH_SCREENSHOTS is set.
func adminShotLightDark(t *testing.T, p *page, name string) {
	t.Helper()
	if dir := os.Getenv("HEARTH_SCREENSHOTS"); dir != "" {
		shootLightDark(t, p, dir, name)
	}
}

// TestBrowserExportMyData: a member asks for their data on their profile, is told it is being
// prepared, then gets the download link and how long it works; the zip they download holds
// their profile, their messages (with the channel's name) and their file. The profile opened
// again shows the same export; past the day's limit, the refusal says when they can again.
func TestBrowserExportMyData(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, ids := community(t)
	bobC := srv.Join("bob")
	rename(t, bobC, "Bob", "", "")
	picture := uploadFile(t, srv, bobC.Token, writePNG(t, "lake.png", 40, 30))
	send(t, bobC, &svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "The lake at dawn", AttachmentIds: []string{picture}})
	send(t, bobC, &svcv1.SendMessageRequest{ChannelId: ids["random"], Text: "héllo 👋"})
	bob := openPage(t, browser, "bob", 1280, 800)
	downloads := t.TempDir()
	bob.downloadsTo(downloads)
	bob.signIn(srv, "bob")
	openProfile := func() {
		bob.click(".me-button")
		bob.waitFor("the profile", `!!document.querySelector('dialog[open][aria-label="Your profile"] .export-data')`)
	}
	openProfile()
	held := holdExports(bob, srv)
	bob.clickJS("Export my data", button("dialog[open] .export-data", "Export my data"))
	bob.waitFor("being prepared", `document.querySelector("dialog[open] .export-status")?.textContent.startsWith("Preparing your data…") && !document.querySelector("dialog[open] .export-data a")`)
	eventually(t, "the link asked again after its Retry-After", "true", func() string { return fmt.Sprint(held.Load() >= 2) })
	bob.eval0(`document.querySelector("dialog[open] .export-data").scrollIntoView({block: "end"})`)
	adminShotLightDark(t, bob, "imports-export-preparing")
	released := held.Load()
	held.Store(-1)
	bob.waitFor("the download link", `!!document.querySelector("dialog[open] .export-data a[download]")`)
	if n := bob.requestsWhere(func(u string) bool { return strings.HasPrefix(u, srv.URL+"/exports/") }); n != int(released)+1 {
		t.Errorf("the link was asked %d times, want %d (each 503 once, then the zip's HEAD)", n, released+1)
	}
	if got := eval[string](bob, `document.querySelector("dialog[open] .export-status").textContent`); got != "Your data is ready." {
		t.Errorf("the status: %q", got)
	}
	link := eval[string](bob, `document.querySelector("dialog[open] .export-data a[download]").href`)
	if !strings.HasPrefix(link, srv.URL+"/exports/") || !strings.Contains(link, "/hearth-data-bob.zip?exp=") {
		t.Errorf("the link: %s", link)
	}
	if got := eval[string](bob, `document.querySelector("dialog[open] .export-data a[download]").textContent`); !strings.HasPrefix(got, "Download your data (zip, ") {
		t.Errorf("the download button: %q", got)
	}
	if got := eval[string](bob, `document.querySelector("dialog[open] .export-data .muted:last-of-type").textContent`); !strings.HasPrefix(got, "The link works for 24 hours, until ") {
		t.Errorf("how long it works: %q", got)
	}
	bob.allNamed("the export")
	bob.eval0(`document.querySelector("dialog[open] .export-data").scrollIntoView({block: "end"})`)
	adminShotLightDark(t, bob, "imports-export-ready")
	bob.contrastInBothThemes("the export", "")
	dark(t, bob, false)

	t.Log("the download")
	bob.clickJS("Download your data", `document.querySelector("dialog[open] .export-data a[download]")`)
	zipPath := filepath.Join(downloads, "hearth-data-bob.zip")
	eventually(t, "the downloaded zip", "there", func() string {
		if _, err := os.Stat(zipPath); err != nil {
			return err.Error()
		}
		return "there"
	})
	entries := readZip(t, zipPath)
	var names []string
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"files/" + picture + "/lake.png", "messages.json", "profile.json"}; !slices.Equal(names, want) {
		t.Fatalf("the zip's entries: %q, want %q", names, want)
	}
	var msgs []struct{ Channel, Text string }
	if err := json.Unmarshal(entries["messages.json"], &msgs); err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, m := range msgs {
		said = append(said, m.Channel+": "+m.Text)
	}
	slices.Sort(said)
	if want := []string{"#general: The lake at dawn", "#random: héllo 👋"}; !slices.Equal(said, want) {
		t.Errorf("messages.json: %q, want %q", said, want)
	}
	var profile struct{ Username, DisplayName string }
	if err := json.Unmarshal(entries["profile.json"], &profile); err != nil || profile.Username != "bob" || profile.DisplayName != "Bob" {
		t.Errorf("profile.json: %s", entries["profile.json"])
	}
	if png := entries["files/"+picture+"/lake.png"]; len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Errorf("the picture: %d bytes", len(png))
	}

	t.Log("opened again: the same export")
	bob.closeDialog()
	openProfile()
	bob.waitFor("the same link", `document.querySelector("dialog[open] .export-data a[download]")?.href === `+js(link))
	made := 1
	if dir := os.Getenv("HEARTH_SCREENSHOTS"); dir != "" {
		// Another tab of the browser shows the same export, kept in the browser.
		phone := openTab(t, bob, "bob on a phone", 390, 844)
		phone.run(chromedp.Navigate(srv.URL + "/app/"))
		phone.waitFor("the chat", `!!document.querySelector(".chat")`)
		phone.click(".menu-button")
		phone.clickJS("your profile", `document.querySelector(".me-button")`)
		phone.waitFor("the profile", `!!document.querySelector('dialog[open][aria-label="Your profile"] .export-data')`)
		phone.waitFor("the same export", `document.querySelector("dialog[open] .export-data a[download]")?.href === `+js(link))
		phone.eval0(`document.querySelector("dialog[open] .export-data").scrollIntoView({block: "end"})`)
		shoot(t, phone, filepath.Join(dir, "imports-export-ready-phone.png"))
		phone.noErrors(srv.URL)
	}

	t.Log("past the day's limit, the refusal says when")
	for ; made < 3; made++ {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := bobC.Server.ExportMyData(ctx, connect.NewRequest(&svcv1.ExportMyDataRequest{}))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "an export made", "200", func() string {
			resp := get(t, srv.URL+res.Msg.GetUrl(), nil)
			resp.Body.Close()
			return fmt.Sprint(resp.StatusCode)
		})
	}
	// After a reload the profile still has the export made in the page, its link working.
	bob.run(chromedp.Reload())
	openProfile()
	bob.waitFor("the export kept across the reload", `document.querySelector("dialog[open] .export-data a[download]")?.href === `+js(link))
	bob.clickJS("Export again", button("dialog[open] .export-data", "Export again"))
	bob.waitFor("the refusal", `document.querySelector("dialog[open] .export-data .error-row")?.textContent.startsWith("You have exported your data as often as a day allows. You can again from ")`)
	if got := eval[string](bob, `document.querySelector("dialog[open] .export-data a[download]")?.href ?? ""`); got != link {
		t.Errorf("after the refusal the download link is %q, want the export's %q", got, link)
	}
	bob.noErrors(srv.URL)
}

// readZip is every entry of the zip at path, by name.
func readZip(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// holdExports answers the page's requests for export links as the server does while the zip
// is being made (503, Retry-After: 1), counting them, until the count is set to -1: then they
// go through.
func holdExports(p *page, srv *webtest.Server) *atomic.Int64 {
	p.t.Helper()
	var held atomic.Int64
	paused := chromedp.Events(p.ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if held.Load() < 0 {
				chromedp.Call(p.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			held.Add(1)
			chromedp.Call(p.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID: ev.RequestID, ResponseCode: 503,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Retry-After", Value: "1"}, {Name: "Content-Type", Value: "application/json"}},
				Body:            []byte(`{"error":"the export is being made; try again in a few seconds"}`),
			})
		}
	}()
	p.run(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: srv.URL + "/exports/*"}}})
		return err
	}))
	return &held
}

// TestUnitsClaimPutsTheMemberInThePlaceholdersPlace: the placeholder's first member_updated
// with claimed_by takes it out of the members and puts the member in its place in the windows
// and the pins held: the author, the reactions (once, where the member reacted too), the
// mentions and the quotes. What is loaded or comes afterwards while the server is still moving
// the messages (with the placeholder in them) is shown the same way.
func TestUnitsClaimPutsTheMemberInThePlaceholdersPlace(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const u = units, s = u.newSession();
		s.state.status = "ready";
		s.state.me = u.member({ id: "me", username: "me" });
		for (const m of [s.state.me, u.member({ id: "ph", username: "maria", imported: true }), u.member({ id: "bob", username: "bob" })]) s.state.members.set(m.id, m);
		const ask = (seq, reactions) => u.message({ id: "m1", channelId: "c1", authorId: "ph", createdSeq: 1n, seq, text: "Who's coming?", pinnedAtMs: 5n, pinnedBy: "ph", reactions });
		const both = [{ emoji: "👍", memberIds: ["ph", "bob"] }, { emoji: "🚤", memberIds: ["me", "ph"] }];
		const reply = u.message({ id: "m2", channelId: "c1", authorId: "bob", createdSeq: 2n, seq: 2n, text: "Me! <@ph> and <@phx>", replyTo: { id: "m1", authorId: "ph", text: "Who's coming?" } });
		s.api = { chat: { listMessages: async () => ({ messages: [ask(1n, both), reply], hasMore: false, hasMoreAfter: false }) } };
		const v = s.view("c1", "", true);
		await v.loadLatest();
		s.dispatch({ case: "pinsLoaded", value: { channelId: "c1", messages: [ask(1n, both)] } });
		const shown = () => v.messages.map((m) => m.authorId + ":" + m.reactions.map((r) => r.emoji + r.memberIds.join("+")).join(",") + ":" + m.text + ":" + (m.replyTo?.authorId ?? "")).join(" | ");
		const out = [];
		s.received(u.event({ seq: 10n, kind: { case: "memberUpdated", value: u.member({ id: "ph", username: "maria", imported: true, claimedBy: "bob" }) } }));
		out.push(shown(), [...s.state.members.keys()].sort().join(","), s.state.pins.get("c1").messages.map((m) => m.authorId + "/" + m.pinnedBy).join());
		// A page read before the server moved its messages, then a reaction's event of one not yet moved.
		await v.loadLatest();
		out.push(shown());
		s.received(u.event({ seq: 11n, kind: { case: "messageUpdated", value: ask(11n, [{ emoji: "🎉", memberIds: ["ph"] }]) } }));
		s.received(u.event({ seq: 12n, kind: { case: "memberLeft", value: "ph" } }));
		out.push(shown().split(" | ")[0], s.state.pins.get("c1").messages[0].authorId);
		return out.join("\n");`)
	want := strings.Join([]string{
		"bob:👍bob,🚤me+bob:Who's coming?: | bob::Me! <@bob> and <@phx>:bob",
		"bob,me",
		"bob/bob",
		"bob:👍bob,🚤me+bob:Who's coming?: | bob::Me! <@bob> and <@phx>:bob",
		"bob:🎉bob:Who's coming?:",
		"bob",
	}, "\n")
	if got != want {
		t.Errorf("after the claim:\n%s\nwant:\n%s", got, want)
	}
}

// TestBrowserClaimShowsInSearchAndThreads: what shows imported messages outside the channel
// puts the member in the placeholder's place as soon as the claim comes: search results on
// screen (Maria's question, claimed for Bob), and the thread inbox (Bob's thread on Tom's
// answer, Tom claimed by the owner), each without a reload.
func TestBrowserClaimShowsInSearchAndThreads(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	bobClient := srv.Join("bob")
	rename(t, bobClient, "Bob", "", "")
	importTrips(t, srv)
	ctx := context.Background()
	ids := map[string]string{}
	members, err := owner.Server.ListMembers(ctx, connect.NewRequest(&svcv1.ListMembersRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members.Msg.GetMembers() {
		ids[m.GetUsername()] = m.GetId()
	}
	st, err := owner.Chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var trips string
	for _, c := range st.Msg.GetChannels() {
		if c.GetName() == "trips" {
			trips = c.GetId()
		}
	}
	msgs, err := owner.Chat.ListMessages(ctx, connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: trips}))
	if err != nil || len(msgs.Msg.GetMessages()) != 3 {
		t.Fatalf("the imported messages: %v %v", msgs, err)
	}
	answer := msgs.Msg.GetMessages()[1] // Tom's "Me! Thanks @Maria"
	if _, err := bobClient.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: trips, ThreadRootId: answer.GetId(), Text: "I'm in too"})); err != nil {
		t.Fatal(err)
	}
	claim := func(placeholder, member string) {
		t.Helper()
		if _, err := owner.Server.ClaimMember(ctx, connect.NewRequest(&svcv1.ClaimMemberRequest{PlaceholderId: ids[placeholder], MemberId: ids[member]})); err != nil {
			t.Fatal(err)
		}
	}

	bob := openPage(t, browser, "bob", 1280, 800)
	bob.signIn(srv, "bob")
	bob.openChannel("general")

	t.Log("the search's results on screen when Maria is claimed for Bob")
	bob.run(press("k", 75, "", 2)) // Ctrl+K
	bob.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	bob.run(chromedp.KeyEvent("lake"))
	authors := `[...document.querySelectorAll("dialog[open] .search-result .search-author")].map(a => a.textContent).join("|")`
	bob.waitFor("Maria's question found", authors+` === "Maria"`)
	claim("maria", "bob")
	bob.waitFor("Bob in Maria's place in the results", authors+` === "Bob" && document.querySelector("dialog[open] .search-result").getAttribute("aria-label").startsWith("Bob in #trips")`)
	bob.closeDialog()

	t.Log("the thread inbox on screen when Tom is claimed by the owner")
	bob.eval0(`location.hash = "#/threads"`)
	row := `document.querySelector(".thread-inbox-list .thread-row")`
	bob.waitFor("Bob's thread on Tom's answer", row+`?.querySelector(".thread-row-author").textContent === "Tom" && `+row+`.querySelector(".thread-row-reply").textContent.startsWith("Bob: I'm in too")`)
	claim("tom", "olivia")
	bob.waitFor("the owner in Tom's place in the inbox", row+`.querySelector(".thread-row-author").textContent === "olivia" && `+row+`.getAttribute("aria-label").startsWith("olivia in #trips")`)
	bob.noErrors(srv.URL)
}
