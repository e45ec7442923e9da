package app_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/evanw/esbuild/pkg/api"
)

// unitEntry exposes the client's pure helpers to the tests below, bundled as the app is.
const unitEntry = `
import { toWire, fromWire, plainText, mentions } from "./src/lib/markdown";
import { sha256Fallback } from "./src/lib/oidc";
import { searchEmoji, emojiName } from "./src/lib/emoji";
import { normalizeServer } from "./src/lib/storage";
import { parseRoute } from "./src/lib/router";
import { MessageView } from "./src/state/view";
import * as drafts from "./src/state/drafts";
import { Session } from "./src/state/session";
import * as select from "./src/state/selectors";
import { create } from "@bufbuild/protobuf";
import { ChannelSchema, MemberSchema, MessageSchema, ReadStateSchema } from "./src/gen/svc/v1/types_pb";
import { EventSchema } from "./src/gen/svc/v1/events_pb";
import { GetStateResponseSchema } from "./src/gen/svc/v1/chat_pb";
import { h, render } from "preact";
import { useLoaded } from "./src/ui/common";
const memoryStorage = () => {
  const m = new Map();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, String(v)), removeItem: (k) => void m.delete(k) };
};
// A session talking to no server; a blank page has no storage, so it gets one in memory.
const newSession = () => {
  for (const name of ["sessionStorage", "localStorage"]) {
    try {
      window[name];
    } catch {
      Object.defineProperty(window, name, { value: memoryStorage(), configurable: true });
    }
  }
  return new Session("http://unit.invalid");
};
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
globalThis.units = {
  toWire, fromWire, plainText, mentions, searchEmoji, emojiName, normalizeServer,
  route: (h) => { const r = parseRoute(h); return { path: r.path, params: Object.fromEntries(r.params) }; },
  sha256: (s) => hex(sha256Fallback(new TextEncoder().encode(s))),
  MessageView, drafts, message: (init) => create(MessageSchema, init),
  newSession, select, member: (init) => create(MemberSchema, init), channel: (init) => create(ChannelSchema, init),
  readState: (init) => create(ReadStateSchema, init), event: (init) => create(EventSchema, init),
  state: (init) => create(GetStateResponseSchema, init),
  // Mounts a component that only calls useLoaded(fetch); returns what the hook returns, as of
  // the last render.
  useLoaded: (fetch) => {
    const out = {};
    const C = () => (Object.assign(out, useLoaded(fetch)), null);
    render(h(C, {}), document.body.appendChild(document.createElement("div")));
    return out;
  },
};
`

// unitPage is a blank page with the client's helpers loaded as globalThis.units.
func unitPage(t *testing.T) *page {
	t.Helper()
	return unitPageOf(t, unitEntry)
}

// unitPageOf is a blank page that has run entry, a TypeScript module importing from src/.
func unitPageOf(t *testing.T, entry string) *page {
	t.Helper()
	// The browser first: without one these tests skip (or fail, in CI) as the other browser
	// tests do, before the bundle asks for the client's packages.
	browser := startBrowser(t)
	res := api.Build(api.BuildOptions{
		Stdin:       &api.StdinOptions{Contents: entry, ResolveDir: ".", Loader: api.LoaderTS},
		Bundle:      true,
		Format:      api.FormatIIFE,
		Target:      api.ES2022,
		Write:       false,
		LogLevel:    api.LogLevelSilent,
		JSX:         api.JSXAutomatic,
		Platform:    api.PlatformBrowser,
		Charset:     api.CharsetUTF8,
		TreeShaking: api.TreeShakingTrue,
		// A component's stylesheet is the bundle's business, not a unit's.
		Loader: map[string]api.Loader{".css": api.LoaderEmpty},
		// As build/main.go bundles the client.
		Alias: map[string]string{"entities": "./src/lib/entities.ts"},
	})
	if len(res.Errors) > 0 {
		t.Fatalf("bundle the helpers (are the client's packages installed? cd web/app && npm ci): %v", res.Errors[0].Text)
	}
	p := openPage(t, browser, "units", 800, 600)
	eval[any](p, string(res.OutputFiles[0].Contents)+"; null")
	return p
}

func TestUnitsMentionsOnTheWire(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	// alice is a member (id a1), bob is not known; a trailing dot ends a sentence.
	cases := map[string]string{
		"hi @alice":           "hi <@a1>",
		"@alice.":             "<@a1>.",
		"mail me@alice":       "mail me@alice",
		"@bob and @alice!":    "@bob and <@a1>!",
		"(@alice)":            "(<@a1>)",
		"<@a1> stays":         "<@a1> stays",
		"@alicex is not her":  "@alicex is not her",
		"line\n@alice second": "line\n<@a1> second",
	}
	for in, want := range cases {
		got := eval[string](p, `units.toWire(`+js(in)+`, (u) => u === "alice" ? "a1" : undefined)`)
		if got != want {
			t.Errorf("toWire(%q) = %q, want %q", in, got, want)
		}
	}
	if got := eval[string](p, `units.fromWire("hi <@a1> and <@zz>", (id) => id === "a1" ? "alice" : undefined)`); got != "hi @alice and <@zz>" {
		t.Errorf("fromWire: %q", got)
	}
	if got := eval[string](p, "units.plainText(\"**hi** <@a1>\\n`x`\", (id) => id === \"a1\" ? \"Alice\" : undefined)"); got != "hi @Alice x" {
		t.Errorf("plainText: %q", got)
	}
	if !eval[bool](p, `units.mentions("hey <@a1>", "a1") && !units.mentions("hey <@a12>", "a1")`) {
		t.Error("mentions: wrong answer")
	}
}

// TestUnitsPlainText: the text read out or quoted is what the rendering shows, without the
// markdown's markers; a marker that renders as itself (unmatched) stays.
func TestUnitsPlainText(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	cases := map[string]string{
		"**bold** and *it* and _it_":             "bold and it and it",
		"**bold with _inner_ words**":            "bold with inner words",
		"`**not bold**` in code":                 "**not bold** in code",
		"see [the notes](https://example.com/a)": "see the notes",
		"bare https://example.com/a_b_c link":    "bare https://example.com/a_b_c link",
		"hi <@a1> and <@zz>":                     "hi @Alice and @unknown member",
		"before\n```js\nlet x = 1;\n```\nafter":  "before let x = 1; after",
		"inline ```let x = 1;``` too":            "inline let x = 1; too",
		"an ``` unclosed fence":                  "an ``` unclosed fence",
		"2 * 3 * 4 and snake_case_name":          "2 * 3 * 4 and snake_case_name",
		"a lone ** stays":                        "a lone ** stays",
		":party: time":                           ":party: time",
		"line one\n\n  line two":                 "line one line two",
	}
	for in, want := range cases {
		got := eval[string](p, `units.plainText(`+js(in)+`, (id) => id === "a1" ? "Alice" : undefined)`)
		if got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnitsSHA256Fallback(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	// The PKCE challenge on a page without WebCrypto: the padding edges around 55/56/64 bytes.
	for _, in := range []string{"", "abc", strings.Repeat("a", 55), strings.Repeat("b", 56), strings.Repeat("c", 64), strings.Repeat("é", 100), "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"} {
		sum := sha256.Sum256([]byte(in))
		if got := eval[string](p, `units.sha256(`+js(in)+`)`); got != hex.EncodeToString(sum[:]) {
			t.Errorf("sha256(%q) = %s, want %x", in, got, sum)
		}
	}
}

func TestUnitsRoutesServersEmoji(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	for in, want := range map[string]string{
		"http://localhost:8080/":      "http://localhost:8080",
		"https://chat.example.com/x/": "https://chat.example.com/x",
		"javascript:alert(1)":         "",
		"ftp://example.com":           "",
		"https://u:p@example.com":     "",
		"not a url":                   "",
	} {
		if got := eval[string](p, `units.normalizeServer(`+js(in)+`)`); got != want {
			t.Errorf("normalizeServer(%q) = %q, want %q", in, got, want)
		}
	}
	if got := eval[string](p, `JSON.stringify(units.route("#/c/abc/m/d%2Fe?x=1"))`); got != `{"path":["c","abc","m","d/e"],"params":{"x":"1"}}` {
		t.Errorf("route: %s", got)
	}
	if got := eval[string](p, `units.searchEmoji("thumbs up").map(e => e.char).join("")`); got != "👍" {
		t.Errorf("searchEmoji(thumbs up) = %q", got)
	}
	if got := eval[string](p, `units.emojiName("🎉")`); got != "tada party" {
		t.Errorf("emojiName(🎉) = %q", got)
	}
	// Every emoji of the picker is one the server takes as a reaction: no letters, digits or
	// spaces, at most 64 bytes.
	bad := eval[[]string](p, `units.searchEmoji("").map(e => e.char).filter(c => /[\p{L}\p{N}\s<>]/u.test(c) || new TextEncoder().encode(c).length > 64)`)
	if len(bad) > 0 {
		t.Errorf("emoji the server would refuse: %q", bad)
	}
}

// TestUnitsViewKeepsWhatCameWhileLoading: a message the stream brings while a channel's first
// page is loading, which the page (read before it was sent) does not hold, is in the window
// once the page comes; an edit that came meanwhile replaces the page's older copy. (Before,
// both were dropped: a person opening a channel as someone wrote in it did not see the
// message.)
func TestUnitsViewKeepsWhatCameWhileLoading(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const m = (id, createdSeq, seq, text) => units.message({ id, channelId: "c1", createdSeq, seq, text });
		let answer;
		const session = { em: { emit() {} }, api: { chat: { listMessages: () => new Promise((r) => (answer = r)) } } };
		const v = new units.MessageView(session, "c1");
		const loading = v.loadLatest();
		v.add(m("m3", 3n, 3n, "sent while loading"));
		v.update(m("m1", 1n, 4n, "edited while loading"));
		answer({ messages: [m("m1", 1n, 1n, "first"), m("m2", 2n, 2n, "second")], hasMore: false, hasMoreAfter: false });
		await loading;
		return v.messages.map((x) => x.id + ": " + x.text).join(" | ") + " (loading: " + JSON.stringify(v.loading) + ")";`)
	if want := `m1: edited while loading | m2: second | m3: sent while loading (loading: "")`; got != want {
		t.Errorf("the window: %s\nwant %s", got, want)
	}
}

// TestUnitsADeletionStaysDeleted: the person's own delete is shown from the call's answer (a
// blanked copy of what they had, its seq older than the view's), is not brought back by a copy
// that is not deleted arriving after (an edit's or a reaction's event still on its way), and
// the deletion's own event replaces it. (Before, the client waited for the event to show a
// delete at all.)
func TestUnitsADeletionStaysDeleted(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const m = (seq, text, deleted) => units.message({ id: "m1", channelId: "c1", createdSeq: 1n, seq, text, deleted });
		const session = { em: { emit() {} }, api: { chat: { listMessages: async () => ({ messages: [m(1n, "first", false)], hasMore: false, hasMoreAfter: false }) } } };
		const v = new units.MessageView(session, "c1");
		await v.loadLatest();
		const shown = () => v.messages.map((x) => x.text + (x.deleted ? " (deleted)" : "") + " @" + x.seq).join(" | ");
		const out = [];
		v.update(m(2n, "first, edited", false)); // an edit's event
		v.update(m(1n, "", true)); // the delete's answer: the copy the person had, blanked
		out.push(shown());
		v.update(m(2n, "first, edited", false)); // the edit's event again, late
		out.push(shown());
		v.update(m(3n, "", true)); // the deletion's event
		out.push(shown());
		return out.join(" / ");`)
	if want := ` (deleted) @1 /  (deleted) @1 /  (deleted) @3`; got != want {
		t.Errorf("the message: %s\nwant %s", got, want)
	}
}

// unitRun runs an async JavaScript function body in the units page and returns its answer.
func unitRun(t *testing.T, p *page, body string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLimit)
	defer cancel()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const tick = () => new Promise((r) => setTimeout(r, 0));
		`+body+`
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestUnitsThreadRootKeepsWhatCameWhileLoading: a change to a thread's root that the stream
// brings while the root is loading (a new reply's count) is kept over the answer, read before
// it. (Before, the answer replaced it: a thread opened from a link as someone replied showed
// one reply fewer above the replies.)
func TestUnitsThreadRootKeepsWhatCameWhileLoading(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const root = (seq, replyCount) => units.message({ id: "r1", channelId: "c1", createdSeq: 1n, seq, replyCount, text: "root" });
		let answer;
		const session = { em: { emit() {} }, view: () => undefined, api: { chat: { listMessages: () => new Promise((r) => (answer = r)) } } };
		const v = new units.MessageView(session, "c1", "r1");
		const loading = v.loadRoot();
		v.update(root(5n, 2));
		answer({ messages: [root(3n, 1)], hasMore: false, hasMoreAfter: false });
		const found = await loading;
		return found + ", " + v.root.replyCount + " replies";`)
	if want := "true, 2 replies"; got != want {
		t.Errorf("the root: %s, want %s", got, want)
	}
}

// TestUnitsStateKeepsWhatCameWhileLoading: events the stream brings while GetState is on its
// way (after a change of channel mode, the stream stays open) are applied to its answer, except
// those the answer already holds. (Before, the answer replaced what they had changed: a member
// who joined meanwhile was missing, and their messages were by "someone who left".)
func TestUnitsStateKeepsWhatCameWhileLoading(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const s = units.newSession();
		let answer;
		s.api = { chat: { getState: () => new Promise((r) => (answer = r)) } };
		const member = (id) => units.member({ id, username: id });
		const loading = s.loadState();
		s.received(units.event({ seq: 9n, kind: { case: "memberJoined", value: member("m9") } }));
		s.received(units.event({ seq: 11n, kind: { case: "memberJoined", value: member("m11") } }));
		s.received(units.event({ seq: 12n, kind: { case: "memberLeft", value: "m1" } }));
		// A stream that broke now would resume after what is kept.
		const resume = s.seq;
		answer(units.state({ seq: 10n, members: [member("m1"), member("m9")] }));
		if (!(await loading)) return "the load failed";
		const before = [...s.state.members.keys()].sort().join(" ") + ", seq " + s.seq + " (resuming after " + resume + "), " + s.state.status;
		// The next load's answer holds up to seq 20, a message of seq 19 counted as unread; the
		// stream brings that message after the answer, then one of seq 21.
		const again = s.loadState();
		answer(units.state({
			seq: 20n, members: [member("m9"), member("m11")],
			channels: [units.channel({ id: "c1", name: "general", lastMessageSeq: 19n })],
			readStates: [units.readState({ channelId: "c1", lastReadSeq: 18n, unreadCount: 1 })],
		}));
		await again;
		const said = (seq) => units.event({ seq, kind: { case: "messageCreated", value: units.message({ id: "x" + seq, channelId: "c1", authorId: "m9", createdSeq: seq, seq, text: "hi" }) } });
		s.received(said(19n));
		s.received(said(21n));
		return before + "; then " + units.select.readState(s.state, "c1").unreadCount + " unread, seq " + s.seq;`)
	if want := "m11 m9, seq 12 (resuming after 12), ready; then 2 unread, seq 21"; got != want {
		t.Errorf("the state: %s, want %s", got, want)
	}
}

// TestUnitsMarkReadKeepsWhatCameAfter: a message that comes after the channel was marked read,
// before MarkRead's answer, stays unread. (Before, the answer, which counted nothing unread,
// replaced the read state: a channel left right after reading it showed no badge for it.)
func TestUnitsMarkReadKeepsWhatCameAfter(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const s = units.newSession();
		s.state.status = "ready";
		s.state.me = units.member({ id: "me", username: "me" });
		s.state.channels.set("c1", units.channel({ id: "c1", name: "general", lastMessageSeq: 11n }));
		s.state.reads.set("c1", units.readState({ channelId: "c1", lastReadSeq: 10n, unreadCount: 1 }));
		let answer;
		s.api = { chat: { markRead: () => new Promise((r) => (answer = r)) } };
		s.act.markRead("c1");
		// The stream: the read state the call made, then a message someone sent after it.
		s.received(units.event({ seq: 12n, kind: { case: "readState", value: units.readState({ channelId: "c1", lastReadSeq: 11n }) } }));
		s.received(units.event({ seq: 13n, kind: { case: "messageCreated", value: units.message({ id: "m13", channelId: "c1", authorId: "other", createdSeq: 13n, seq: 13n, text: "hi" }) } }));
		answer({ readState: units.readState({ channelId: "c1", lastReadSeq: 11n }) });
		await tick();
		const rs = units.select.readState(s.state, "c1");
		return "read to " + rs.lastReadSeq + ", " + rs.unreadCount + " unread";`)
	if want := "read to 11, 1 unread"; got != want {
		t.Errorf("the read state: %s, want %s", got, want)
	}
}

// TestUnitsEmojiNewestListWins: two emoji_changed close together load the list twice; the
// answer to the first, read before the second change, is not kept when it comes last. (Before,
// it was: an emoji deleted second came back until the next change.)
func TestUnitsEmojiNewestListWins(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const s = units.newSession();
		const answers = [];
		globalThis.fetch = () => new Promise((r) => answers.push(r));
		s.api = { base: "http://unit.invalid", token: async () => "t" };
		const list = (...names) => ({ ok: true, json: async () => ({ emoji: names.map((name) => ({ name, url: "/emoji/" + name })) }) });
		s.apply(units.event({ seq: 1n, kind: { case: "emojiChanged", value: true } }));
		s.apply(units.event({ seq: 2n, kind: { case: "emojiChanged", value: true } }));
		while (answers.length < 2) await tick();
		answers[1](list("a"));
		await tick();
		answers[0](list("a", "b"));
		for (let i = 0; i < 5; i++) await tick();
		return [...s.state.emoji.keys()].join(" ");`)
	if want := "a"; got != want {
		t.Errorf("the emoji: %q, want %q", got, want)
	}
}

// TestUnitsLoadedListNewestAnswer: of a screen's list loads (useLoaded), only the newest one's
// answer is shown; and a change made while a load is on its way (an invite made as the screen
// opened) asks for the list again, rather than being undone by that load's older answer.
// (Before, the invite just made vanished from the list, and a reload's older answer could
// replace a newer one.)
func TestUnitsLoadedListNewestAnswer(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const until = async (f) => { for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 10)); };
		const settle = () => new Promise((r) => setTimeout(r, 50));
		const answers = [];
		const loaded = units.useLoaded(() => new Promise((r) => answers.push(r)));
		await until(() => answers.length === 1);
		loaded.setList((l) => ["new", ...(l ?? [])]);
		await until(() => answers.length === 2);
		answers[1]?.(["new", "old"]);
		await tick();
		answers[0](["old"]);
		await settle();
		const first = JSON.stringify(loaded.list);
		loaded.reload();
		loaded.reload();
		answers.at(-1)(["newest"]);
		await tick();
		answers.at(-2)(["older"]);
		await settle();
		return first + " " + JSON.stringify(loaded.list) + " after " + answers.length + " loads";`)
	if want := `["new","old"] ["newest"] after 4 loads`; got != want {
		t.Errorf("the list: %s, want %s", got, want)
	}
}

// TestUnitsViewKeepsWhatCameWhilePaging: scrolling back down to the present, a message sent
// while the last page loads is in the window once the page comes, and an edit that came
// meanwhile to a message of that page replaces the page's older copy. (Before, the window, not
// yet at the live end, did not take the message, and the page, read before it, ended without
// it: the message was missing until the channel was loaded again; the edit was lost.)
func TestUnitsViewKeepsWhatCameWhilePaging(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const m = (id, createdSeq, seq, text) => units.message({ id, channelId: "c1", createdSeq, seq, text });
		let answer;
		const session = { em: { emit() {} }, api: { chat: { listMessages: () => new Promise((r) => (answer = r)) } } };
		const v = new units.MessageView(session, "c1");
		v.messages = [m("m1", 1n, 1n, "first"), m("m2", 2n, 2n, "second")];
		v.loaded = true;
		v.hasAfter = true;
		const paging = v.loadAfter();
		v.add(m("m4", 4n, 4n, "sent while paging"));
		v.update(m("m3", 3n, 5n, "edited while paging"));
		answer({ messages: [m("m3", 3n, 3n, "third")], hasMore: false, hasMoreAfter: false });
		await paging;
		return v.messages.map((x) => x.id + ": " + x.text).join(" | ") + " (at the live end: " + !v.hasAfter + ")";`)
	if want := "m1: first | m2: second | m3: edited while paging | m4: sent while paging (at the live end: true)"; got != want {
		t.Errorf("the window: %s\nwant %s", got, want)
	}
}

// TestUnitsThreadRootFromTheChannelIsShown: a thread's root taken from the channel's window is
// announced, so the panel shows it even if the replies came before it looked for the root.
// (Before, the root was set without a word: a thread opened from a search, whose jump answered
// before the panel's effect ran, showed its replies without the root above them.)
func TestUnitsThreadRootFromTheChannelIsShown(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const root = units.message({ id: "r1", channelId: "c1", createdSeq: 1n, seq: 1n, text: "root" });
		const emitted = [];
		const channel = { messages: [root] };
		const session = { em: { emit: (t) => emitted.push(t) }, view: (c, thread) => (c === "c1" && !thread ? channel : undefined) };
		const v = new units.MessageView(session, "c1", "r1");
		const found = await v.loadRoot();
		return found + ", " + v.root?.text + ", emitted " + emitted.join(" ");`)
	if want := "true, root, emitted view:r1"; got != want {
		t.Errorf("the root: %s, want %s", got, want)
	}
}

// TestUnitsACommandShowsItsAnswerAsAnEventWould: a command's answer goes through the reducer as
// the event the stream brings (a block shows at once, and its event changes nothing more); a
// channel the person made here is in the sidebar whatever the channel mode, while in OPT_IN
// mode the event of a text channel not held loads the state again (nothing in it says whether
// the person joined it).
func TestUnitsACommandShowsItsAnswerAsAnEventWould(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const s = units.newSession();
		s.state.status = "ready";
		s.state.mode = 2; // OPT_IN
		let loads = 0;
		const text = (id, name) => units.channel({ id, name, kind: 1 });
		s.api = {
			chat: { createChannel: async (req) => ({ channel: text("c2", req.name) }), getState: () => (loads++, new Promise(() => {})) },
			server: { blockMember: async () => ({}) },
		};
		const emitted = [];
		s.em.on("members", () => emitted.push("members"));
		await s.act.toggleBlock("m2");
		const blocked = [...s.state.blocked].join(" ");
		s.apply(units.event({ seq: 4n, kind: { case: "memberBlocked", value: "m2" } }));
		await tick();
		await s.act.createChannel({ name: "made-here" });
		s.apply(units.event({ seq: 5n, kind: { case: "channelCreated", value: text("c3", "made-elsewhere") } }));
		await new Promise((r) => setTimeout(r, 700));
		return "blocked " + blocked + " then " + [...s.state.blocked].join(" ") + " (" + emitted.join(" ") + "); channels " + [...s.state.channels.keys()].join(" ") + ", " + loads + " load";`)
	if want := "blocked m2 then m2 (members members); channels c2, 1 load"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestUnitsViewTellsWhatIsNew: a window's divider goes before the first message of someone else
// after the read position; what arrives while the person watches the end is read as it comes
// (no divider of its own), what arrives while they do not is counted for "Jump to latest" and
// starts the new part; their own messages are never new.
func TestUnitsViewTellsWhatIsNew(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const m = (id, seq, authorId) => units.message({ id, channelId: "c1", createdSeq: seq, seq, authorId, text: id });
		const session = { em: { emit() {} }, state: { me: { id: "me" } }, api: { chat: { listMessages: async () => ({ messages: [m("a", 1n, "bob"), m("b", 2n, "me"), m("c", 3n, "bob")], hasMore: false, hasMoreAfter: false }) } } };
		const v = new units.MessageView(session, "c1");
		await v.loadLatest();
		const out = [];
		const shown = () => out.push("divider " + (v.divider() || "none") + ", unseen " + v.unseen);
		v.readMark = 1n;
		shown(); // b is the person's own: c is the first new one
		v.readMark = 3n;
		v.watching = () => true;
		v.add(m("d", 4n, "bob"));
		shown(); // seen as it came
		v.watching = () => false;
		v.add(m("e", 5n, "me"));
		v.add(m("f", 6n, "bob"));
		v.add(m("g", 7n, "bob"));
		shown(); // f starts the new part; f and g unseen
		v.watching = () => true;
		v.add(m("h", 8n, "bob"));
		shown(); // after the divider: part of the new part
		return out.join(" / ");`)
	if want := "divider c, unseen 0 / divider none, unseen 0 / divider f, unseen 2 / divider f, unseen 2"; got != want {
		t.Errorf("what is new: %s\nwant %s", got, want)
	}
}

// TestUnitsDraftsKeptBounded: drafts are kept in the browser's storage for the next page, the
// newest 50 of a server, 10,000 characters of each at most, with their uploaded files; a sent
// (emptied) draft is no longer kept; a sign-out forgets them all.
func TestUnitsDraftsKeptBounded(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		units.newSession(); // the blank page gets a storage
		const d = units.drafts, base = "http://unit.invalid";
		const flush = () => window.dispatchEvent(new Event("pagehide"));
		for (let i = 0; i < 60; i++) {
			d.setDraftText(d.draftKey(base, "c" + i, ""), "draft " + i);
			flush();
		}
		d.setDraftText(d.draftKey(base, "c59", "r1"), "x".repeat(12000));
		d.restoreDraft(d.draftKey(base, "c58", "r1"), "with a file", [{ id: "u1", name: "a.png", contentType: "image/png", width: 4, height: 3, size: 10, uploadedAt: Date.now() }], Date.now());
		d.clearDraft(d.draftKey(base, "c57", ""));
		flush();
		const kept = JSON.parse(localStorage.getItem("hearth.drafts." + base));
		const keys = Object.keys(kept);
		const out = [keys.length + " kept", "c0/ " + ("c0/" in kept), "c9/ " + ("c9/" in kept), "c12/ " + ("c12/" in kept), "c57/ " + ("c57/" in kept),
			"long " + kept["c59/r1"].text.length, "file " + kept["c58/r1"].files.map((f) => f.name + ":" + f.id).join()];
		forgot: {
			d.forgetDrafts(base);
			out.push("after a sign-out " + localStorage.getItem("hearth.drafts." + base));
		}
		return out.join(", ");`)
	if want := "50 kept, c0/ false, c9/ false, c12/ true, c57/ false, long 10000, file a.png:u1, after a sign-out null"; got != want {
		t.Errorf("the drafts kept: %s\nwant %s", got, want)
	}
}
