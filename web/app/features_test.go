package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// writeZip writes a zip of files (path inside -> content) and returns its path.
func writeZip(t *testing.T, name string, files [][2]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// evalAwait is eval of an expression whose value is a promise: it returns what the promise
// resolves to.
func evalAwait[T any](p *page, js string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: %s: %v", p.name, js, err)
	}
	return v
}

// browserCall runs a Browser-domain command for the page's browser context.
func browserCall[P any](p *page, what string, c cdp.Command[P, cdp.Empty], params P) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLimit)
	defer cancel()
	if _, err := cdp.Call(ctx, chromedp.FromContext(p.ctx).Browser, c, params); err != nil {
		p.t.Fatalf("%s: %s: %v", p.name, what, err)
	}
}

// downloadsTo lets the page download files, into dir.
func (p *page) downloadsTo(dir string) {
	p.t.Helper()
	browserCall(p, "allow downloads", cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, BrowserContextID: chromedp.FromContext(p.ctx).BrowserContextID, DownloadPath: dir,
	})
}

// TestBrowserEmojiZip: a moderator uploads a zip of emoji (with a loose image beside it) and
// sees one result per image: added, already there, and rejected with the server's reason; a
// member sees the new emoji in the picker, reacts with one, and exports them all as a zip; a
// deletion reaches the member's picker live. A member is offered neither upload nor deletion.
func TestBrowserEmojiZip(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	addEmoji(t, srv, owner.Token, "party", writePNG(t, "party.png", 64, 64))
	bob := srv.Join("bob")
	rename(t, bob, "Bob", "", "")
	oliviaPage := openPage(t, browser, "olivia", 1280, 800)
	bobPage := openPage(t, browser, "bob", 1280, 800)
	oliviaPage.signIn(srv, "olivia")
	bobPage.signIn(srv, "bob")
	oliviaPage.sendAPI(t, owner, ids["general"], "new emoji are coming")
	for _, p := range []*page{oliviaPage, bobPage} {
		p.openChannel("general")
		p.seesOnce("new emoji are coming")
	}

	t.Log("a zip and an image, one result each image")
	pack := writeZip(t, "garden-pack.zip", [][2]string{
		{"garden/wave.png", readFile(t, writePNG(t, "wave.png", 64, 64))},
		{"garden/party.png", readFile(t, writePNG(t, "party.png", 32, 32))},
		{"garden/notes.png", "this is not a picture"},
		{"garden/huge.png", readFile(t, writePNG(t, "huge.png", 600, 600))},
		{"__MACOSX/garden/._wave.png", "resource fork"},
	})
	star := writePNG(t, "star.png", 48, 48)
	oliviaPage.openTool("Custom emoji")
	oliviaPage.allNamed("the custom emoji dialog")
	oliviaPage.run(chromedp.SetUploadFiles(chromedp.CSS(`dialog[open] .emoji-upload input[type="file"]`), []string{pack, star}))
	oliviaPage.waitFor("the results", `document.querySelector('.upload-results [role="status"]')?.textContent === "2 added, 1 already there, 2 rejected."`)
	rows := eval[[]string](oliviaPage, `[...document.querySelectorAll(".results-table tbody tr")].map(r => [...r.cells].map(c => c.textContent).join(" | "))`)
	want := []string{
		"garden/wave.png | :wave: | Added",
		"garden/party.png | :party: | Already exists",
		"garden/notes.png | :notes: | Rejectedit is text/plain; charset=utf-8, not a PNG, GIF or WebP image",
		"garden/huge.png | :huge: | Rejectedit is 600x600 pixels; the limit is 512x512",
		"star.png | :star: | Added",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("the results table:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	oliviaPage.allNamed("the upload results")
	oliviaPage.waitFor("the list", `[...document.querySelectorAll("dialog[open] .emoji-name")].map(e => e.textContent).join() === ":party:,:star:,:wave:"`)
	oliviaPage.closeDialog()

	t.Log("a member: the picker has them, a reaction with one; no upload or deletion offered")
	spot := messageJS(".channel-view", "new emoji are coming")
	bobPage.clickJS("Add reaction", spot+`.querySelector('[aria-label="Add reaction"]')`)
	bobPage.click(`dialog[open] button[aria-label=":wave:"]`)
	oliviaPage.waitFor("bob's :wave: reaction", spot+`?.querySelector('.reaction[aria-label=":wave:: 1"] img')?.alt === ":wave:" && `+spot+`.querySelector('.reaction img').naturalWidth === 64`)
	bobPage.openTool("Custom emoji")
	bobPage.waitFor("the list for bob", `document.querySelectorAll("dialog[open] .emoji-item").length === 3`)
	if eval[bool](bobPage, `!!document.querySelector("dialog[open] .emoji-upload") || !!document.querySelector('dialog[open] button[aria-label^="Delete"]')`) {
		t.Error("a member is offered uploading or deleting emoji")
	}

	t.Log("the export is every emoji, as a zip")
	downloads := t.TempDir()
	bobPage.downloadsTo(downloads)
	bobPage.clickJS("Export all", buttonJS("dialog[open]", "Export all (.zip)"))
	zipPath := filepath.Join(downloads, "Hearth-emoji.zip")
	deadline := time.Now().Add(waitLimit)
	var names []string
	for time.Now().Before(deadline) {
		if zr, err := zip.OpenReader(zipPath); err == nil {
			for _, f := range zr.File {
				names = append(names, f.Name)
			}
			zr.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := strings.Join(names, ","); got != "party.png,star.png,wave.png" {
		t.Errorf("the exported zip holds %q, want party.png,star.png,wave.png", got)
	}
	bobPage.closeDialog()

	t.Log("a deletion reaches the member's picker")
	oliviaPage.openTool("Custom emoji")
	oliviaPage.click(`dialog[open] button[aria-label="Delete :star:"]`)
	oliviaPage.clickJS("the confirmation", buttonJS("dialog[open] .emoji-item .confirm", "Delete"))
	oliviaPage.waitFor(":star: gone", `[...document.querySelectorAll("dialog[open] .emoji-name")].map(e => e.textContent).join() === ":party:,:wave:"`)
	bobPage.clickJS("Add reaction", spot+`.querySelector('[aria-label="Add reaction"]')`)
	bobPage.waitFor("the picker without :star:", `!!document.querySelector('dialog[open] button[aria-label=":wave:"]') && !document.querySelector('dialog[open] button[aria-label=":star:"]')`)
	bobPage.closeDialog()
	for _, p := range []*page{oliviaPage, bobPage} {
		p.noErrors(srv.URL)
	}
}

// TestBrowserSearchJump: the search (opened with Ctrl+K) finds messages as the person types,
// marks the words, narrows to one channel, and opens a result in context: an old message of a
// long channel with its neighbours around it, and a thread reply in its thread.
func TestBrowserSearchJump(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, func(o *engine.Options) { o.BotRate, o.BotBurst = 1e9, 1e9 })
	bot := srv.CreateBot(owner, "archivist")
	ctx := context.Background()
	say := func(c *webtest.Client, channel, text, thread string) *svcv1.Message {
		res, err := c.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: channel, Text: text, ThreadRootId: thread}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetMessage()
	}
	fillChannel(t, bot, ids["general"], 60)
	old := say(owner, ids["general"], "the quartz lantern is in the attic", "")
	fillChannel(t, bot, ids["general"], 120)
	say(owner, ids["random"], "my quartz clock stopped", "")
	root := say(owner, ids["random"], "where did everyone go?", "")
	reply := say(bot, ids["random"], "looking for quartz in the garden", root.GetId())
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("random")
	alice.seesOnce("where did everyone go?")

	t.Log("Ctrl+K, and results as one types")
	alice.run(press("k", 75, "", 2)) // Ctrl+K
	alice.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	alice.run(chromedp.KeyEvent("qua"))
	results := `[...document.querySelectorAll("dialog[open] .search-result")]`
	alice.waitFor("three results, the newest first", results+`.map(r => r.querySelector(".search-text").textContent).join("|") === "looking for quartz in the garden|my quartz clock stopped|the quartz lantern is in the attic"`)
	alice.waitFor("the words marked", results+`.every(r => r.querySelector("mark")?.textContent === "qua")`)
	alice.allNamed("the search results")
	if where := eval[string](alice, results+`.map(r => r.querySelector(".search-where").textContent + " " + (r.querySelector(".tag")?.textContent ?? "")).join("|")`); where != "#random in a thread|#random |#general " {
		t.Errorf("the results' places: %q", where)
	}

	t.Log("narrowed to #general; the old message opens in context")
	alice.eval0(`(() => { const s = document.querySelector('dialog[open] select[aria-label="Search in"]'); s.value = ` + js(ids["general"]) + `; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
	alice.waitFor("one result", results+`.length === 1 && document.querySelector('dialog[open] [role="status"]').textContent === "1 message found."`)
	alice.run(press("ArrowDown", 40, "", 0))
	alice.waitFor("the result focused", `document.activeElement?.classList.contains("search-result")`)
	alice.run(enter())
	target := `document.querySelector(".channel-view .msg-target")`
	alice.waitFor("the message in context, in sight", fmt.Sprintf(`(() => {
		const m = %s;
		if (!m || m.dataset.id !== %s || document.querySelector("dialog")) return false;
		const box = document.querySelector(".channel-view .message-scroller").getBoundingClientRect(), r = m.getBoundingClientRect();
		const prev = m.previousElementSibling, next = m.nextElementSibling;
		return r.top >= box.top && r.bottom <= box.bottom && prev?.querySelector(".msg-text")?.textContent.startsWith("message") && next?.querySelector(".msg-text")?.textContent.startsWith("message");
	})()`, target, js(old.GetId())))
	alice.waitFor("#general open away from its newest messages", `document.querySelector(".channel-title").textContent.endsWith("general") && !!document.querySelector(".jump-present")`)

	t.Log("a thread reply opens in its thread")
	alice.click(".search-button")
	alice.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	alice.run(chromedp.KeyEvent("garden"))
	alice.waitFor("the reply found", results+`.length === 1`)
	alice.clickJS("the reply", results+`[0]`)
	alice.waitFor("the thread open on the reply", fmt.Sprintf(`document.querySelector(".thread-panel .msg-target")?.dataset.id === %s && document.querySelector(".thread-panel .thread-root .msg-text")?.textContent === "where did everyone go?"`, js(reply.GetId())))

	t.Log("a query with no word: the server's words")
	alice.click(".search-button")
	alice.waitFor("the search, focused", `document.activeElement === document.querySelector('dialog[open] input[aria-label="Search messages"]')`)
	alice.run(chromedp.KeyEvent("!!"))
	alice.waitFor("the refusal", `document.querySelector('dialog[open] .error-row[role="alert"]')?.textContent.includes("query")`)

	t.Log("a channel picked while the search waits for the typing to stop: that channel's results")
	// The words go in, and the channel is picked after the page has taken them and before the
	// search they wait for runs (a quarter of a second after the last key).
	typeThenPick := fmt.Sprintf(`(async () => {
		const input = document.querySelector('dialog[open] input[aria-label="Search messages"]');
		Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(input, "quartz");
		input.dispatchEvent(new Event("input", { bubbles: true }));
		await new Promise((r) => setTimeout(r, 150));
		const s = document.querySelector('dialog[open] select[aria-label="Search in"]');
		s.value = %s;
		s.dispatchEvent(new Event("change", { bubbles: true }));
		return true;
	})()`, js(ids["general"]))
	alice.waitFor("the words typed and the channel picked", typeThenPick)
	onlyGeneral := results + `.map(r => r.querySelector(".search-where").textContent).join("|") === "#general"`
	alice.waitFor("#general's result", onlyGeneral)
	time.Sleep(400 * time.Millisecond)
	if !eval[bool](alice, onlyGeneral) {
		t.Errorf("the results after the search for the typing ran: %s", eval[string](alice, results+`.map(r => r.querySelector(".search-where").textContent).join("|")`))
	}
	alice.closeDialog()
	alice.noErrors(srv.URL)
}

// TestBrowserBotsAndPlugins: an admin creates a bot and copies its token, shown once; the token
// works, a rotation replaces it, a deletion ends it. A plugin that does not compile is refused
// with the server's error; one pasted in answers `!ping`; one stopped by its time limit shows
// it live with the reason and is restarted; one from a file installs under the file's name;
// disabling, enabling and deleting show in the list.
func TestBrowserBotsAndPlugins(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	olivia := openPage(t, browser, "olivia", 1280, 800)
	olivia.signIn(srv, "olivia")
	olivia.openChannel("general")
	browserCall(olivia, "grant the clipboard", cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "clipboard-read"}, Setting: cdpbrowser.PermissionSettingGranted,
		Origin: srv.URL, BrowserContextID: chromedp.FromContext(olivia.ctx).BrowserContextID,
	})

	t.Log("a bot, its token shown once and copied")
	olivia.openTool("Bots and plugins")
	olivia.allNamed("the bots tab")
	olivia.setText(field("Username"), "weatherbot")
	olivia.setText(field("Display name (optional)"), "Weather")
	olivia.clickJS("Create bot", buttonJS("dialog[open]", "Create bot"))
	olivia.waitFor("the token", `document.querySelector('dialog[open] input[aria-label="Bot token"]')?.value.startsWith("hb_")`)
	token := eval[string](olivia, `document.querySelector('dialog[open] input[aria-label="Bot token"]').value`)
	olivia.allNamed("the token box")
	olivia.clickJS("Copy", buttonJS("dialog[open] .token-box", "Copy"))
	olivia.waitFor("copied", `document.querySelector('.token-box [role="status"]').textContent === "Copied to the clipboard."`)
	if got := evalAwait[string](olivia, `navigator.clipboard.readText()`); got != token {
		t.Errorf("the clipboard holds %q, want the token %q", got, token)
	}
	botClient := srv.Client(token)
	me, err := botClient.Server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{}))
	if err != nil || me.Msg.GetMember().GetUsername() != "weatherbot" {
		t.Fatalf("GetMe with the copied token: %v %v", me, err)
	}
	olivia.clickJS("Done", buttonJS("dialog[open] .token-box", "Done, I have copied it"))
	olivia.waitFor("the bot listed", `document.querySelector('.bot-item[aria-label="Weather"]') !== null && !document.querySelector(".token-box")`)
	if eval[bool](olivia, `document.body.innerHTML.includes(`+js(token)+`) || [...document.querySelectorAll("input, textarea")].some(e => e.value === `+js(token)+`)`) {
		t.Error("the token is still in the page after Done")
	}

	t.Log("rotate, then delete")
	olivia.click(`button[aria-label="Rotate the token of Weather"]`)
	olivia.clickJS("Rotate, confirmed", buttonJS(".bot-item .confirm", "Rotate"))
	olivia.waitFor("a new token", `document.querySelector('dialog[open] input[aria-label="Bot token"]')?.value.startsWith("hb_") && document.querySelector('dialog[open] input[aria-label="Bot token"]').value !== `+js(token))
	rotated := eval[string](olivia, `document.querySelector('dialog[open] input[aria-label="Bot token"]').value`)
	if _, err := botClient.Server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{})); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("the old token after a rotation: %v, want unauthenticated", err)
	}
	if _, err := srv.Client(rotated).Server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{})); err != nil {
		t.Errorf("the new token: %v", err)
	}
	olivia.clickJS("Done", buttonJS("dialog[open] .token-box", "Done, I have copied it"))
	olivia.click(`button[aria-label="Delete Weather"]`)
	olivia.clickJS("Delete, confirmed", buttonJS(".bot-item .confirm", "Delete"))
	olivia.waitFor("the bot gone", `!document.querySelector(".bot-item") && document.querySelector("dialog[open] .bots")?.textContent.includes("No bots yet.")`)

	t.Log("a plugin that does not compile is refused with its error")
	olivia.clickJS("the Plugins tab", `document.querySelector('dialog[open] [role="tab"]:nth-child(2)')`)
	olivia.setText(field("Name (also its bot's username)"), "broken")
	source := `document.querySelector("dialog[open] textarea.plugin-source")`
	olivia.setText(source, `chat.on("message", (m) => {`)
	olivia.clickJS("Install", buttonJS("dialog[open] .install-plugin", "Install"))
	olivia.waitFor("the server's error", `document.querySelector('dialog[open] .install-plugin .plugin-error[role="alert"]')?.textContent.includes("SyntaxError")`)

	t.Log("one pasted in answers !ping")
	olivia.setText(field("Name (also its bot's username)"), "pinger")
	olivia.setText(source, "chat.on(\"message\", (m) => {\n  if (m.text === \"!ping\") chat.sendMessage({ channelId: m.channelId, text: \"pong\" });\n});\n")
	olivia.clickJS("Install", buttonJS("dialog[open] .install-plugin", "Install"))
	olivia.waitFor("installed and running", `document.querySelector('dialog[open] .install-plugin .ok-row')?.textContent === "Installed pinger; it is running." && document.querySelector('.plugin-item[aria-label="pinger, running"]') !== null`)
	olivia.allNamed("the plugins tab")
	olivia.closeDialog()
	olivia.send("!ping")
	olivia.waitFor("pong from the plugin's bot", `[...document.querySelectorAll(".channel-view article.msg")].some(m => m.querySelector(".msg-text")?.textContent === "pong" && m.querySelector(".author")?.textContent === "pinger")`)

	t.Log("disable, enable, a plugin from a file, delete")
	olivia.openTool("Bots and plugins")
	olivia.clickJS("the Plugins tab", `document.querySelector('dialog[open] [role="tab"]:nth-child(2)')`)
	olivia.click(`button[aria-label="Disable pinger"]`)
	olivia.waitFor("disabled", `document.querySelector('.plugin-item[aria-label="pinger, disabled"] .plugin-state')?.textContent === "Disabled"`)
	olivia.click(`button[aria-label="Enable pinger"]`)
	olivia.waitFor("running again", `document.querySelector('.plugin-item[aria-label="pinger, running"]') !== null`)

	t.Log("a plugin stopped by its time limit shows so live; Restart runs it again")
	olivia.setText(field("Name (also its bot's username)"), "looper")
	olivia.setText(source, "chat.on(\"message\", (m) => {\n  if (m.text === \"!loop\") for (;;) {}\n});\n")
	olivia.clickJS("Install", buttonJS("dialog[open] .install-plugin", "Install"))
	olivia.waitFor("looper running", `document.querySelector('.plugin-item[aria-label="looper, running"]') !== null`)
	if _, err := owner.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "!loop"})); err != nil {
		t.Fatal(err)
	}
	olivia.waitFor("looper stopped, with the reason", `document.querySelector('.plugin-item[aria-label="looper, not running"] .plugin-error')?.textContent.startsWith("stopped: hook message ran longer than 500ms")`)
	olivia.click(`button[aria-label="Restart looper"]`)
	olivia.waitFor("looper running again", `document.querySelector('.plugin-item[aria-label="looper, running"]') !== null`)
	if eval[bool](olivia, `!!document.querySelector('button[aria-label="Restart pinger"]')`) {
		t.Error("Restart is offered for a running plugin")
	}
	file := filepath.Join(t.TempDir(), "Greeter.js")
	if err := os.WriteFile(file, []byte(`chat.on("memberJoined", (m) => {});`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	olivia.run(chromedp.SetUploadFiles(chromedp.CSS(`dialog[open] .install-plugin input[type="file"]`), []string{file}))
	olivia.waitFor("the name from the file", `document.querySelector("dialog[open] .install-plugin input.input").value === "greeter" && `+source+`.value.startsWith("chat.on(\"memberJoined\"")`)
	olivia.clickJS("Install", buttonJS("dialog[open] .install-plugin", "Install"))
	olivia.waitFor("greeter running", `document.querySelector('.plugin-item[aria-label="greeter, running"]') !== null`)
	olivia.click(`button[aria-label="Delete pinger"]`)
	olivia.clickJS("Delete, confirmed", buttonJS(".plugin-item .confirm", "Delete"))
	olivia.waitFor("pinger gone", `!document.querySelector('.plugin-item[aria-label^="pinger"]') && [...document.querySelectorAll(".plugin-item")].length === 2`)
	list, err := owner.Bot.ListPlugins(ctx, connect.NewRequest(&svcv1.ListPluginsRequest{}))
	var names []string
	for _, p := range list.Msg.GetPlugins() {
		names = append(names, p.GetName())
	}
	if err != nil || strings.Join(names, ",") != "greeter,looper" {
		t.Errorf("ListPlugins after the deletion: %v %v, want greeter and looper", names, err)
	}
	olivia.noErrors(srv.URL)
}
