package app_test

import (
	"strings"
	"testing"
)

// markdownEntry renders message text as the client does (lib/markdown), into an element of the
// page, and exposes the shortcode table and its search (lib/shortcodes).
const markdownEntry = `
import { h, render } from "preact";
import { renderMarkdown, plainText } from "./src/lib/markdown";
import { shortcodes, searchShortcodes } from "./src/lib/shortcodes";
const ctx = {
  memberName: (id) => ({ a1: "Alice", me: "Me" })[id],
  meId: "me",
  emoji: new Map([["party", "https://example.org/party.png"]]),
};
globalThis.md = {
  // The element the text renders into, left in the page.
  render: (text) => {
    const root = document.body.appendChild(document.createElement("div"));
    root.className = "msg-text";
    render(h("div", null, renderMarkdown(text, ctx)), root);
    return root.firstChild;
  },
  html: (text) => md.render(text).innerHTML,
  plain: (text) => plainText(text, (id) => ({ a1: "Alice" })[id]),
  table: () => shortcodes.load(),
  search: async (q, custom) => searchShortcodes(q, await shortcodes.load(), new Map(custom ?? []), 8),
};
`

// TestUnitsMarkdownIsSafe: whatever a message says, its rendering makes no link but to http,
// https and mailto addresses (with rel="noopener noreferrer nofollow ugc"), no picture, no
// element of the message's own HTML, and no event handler: markup shows as the text it is.
func TestUnitsMarkdownIsSafe(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, markdownEntry)
	for _, in := range []string{
		"[a](javascript:alert(1))",
		"[a](JaVaScRiPt:alert(1))",
		"[a]( javascript:alert(1) )",
		"[a](java\tscript:alert(1))",
		"[a](javascript&#58;alert(1))",
		"[a](&#106;avascript:alert(1))",
		"[a](vbscript:msgbox(1))",
		"[a](data:text/html,<script>alert(1)</script>)",
		"[a](file:///etc/passwd)",
		"[a](//example.net/)",
		"[a](/relative)",
		"<javascript:alert(1)>",
		"javascript:alert(1)",
		"[a][r]\n\n[r]: javascript:alert(1)",
		"![a picture](javascript:alert(1))",
		"[**bold**](javascript:alert(1)) ||[a](javascript:alert(1))||",
	} {
		got := eval[string](p, `(() => { const el = md.render(`+js(in)+`); return [...el.querySelectorAll("a")].map(a => a.getAttribute("href")).join(" ") + "|" + el.querySelectorAll("img").length; })()`)
		if got != "|0" {
			t.Errorf("%q made links or pictures: %s\n%s", in, got, eval[string](p, `md.html(`+js(in)+`)`))
		}
	}
	for in, want := range map[string]string{
		"[docs](https://example.org/docs)":        "https://example.org/docs",
		"see https://example.org/a_(b) now":       "https://example.org/a_(b)",
		"<https://example.org/x>":                 "https://example.org/x",
		"[mail](mailto:ann@example.org)":          "mailto:ann@example.org",
		"write to ann@example.org":                "mailto:ann@example.org",
		"![a picture](https://example.org/p.png)": "https://example.org/p.png",
	} {
		got := eval[string](p, `(() => { const el = md.render(`+js(in)+`); return [...el.querySelectorAll("a")].map(a => a.getAttribute("href") + " " + a.rel + " " + a.target).join("; ") + "|" + el.querySelectorAll("img").length; })()`)
		if got != want+" noopener noreferrer nofollow ugc _blank|0" {
			t.Errorf("%q: links %q, want one to %s (and no picture)", in, got, want)
		}
	}
	// HTML, in a line or as a block, stays text; so do character references.
	for _, in := range []string{
		`<img src=x onerror=alert(1)>`,
		`<script>alert(1)</script>`,
		`<a href="javascript:alert(1)">x</a>`,
		"<div onclick=\"alert(1)\">\n**not bold** in an HTML block\n</div>",
		`<iframe src="x"></iframe> <b>b</b> <style>*{}</style>`,
		"`<b>in code</b>`",
		"```html\n<script>alert(1)</script>\n```",
		`&lt;b&gt; &#60;b&#62; &copy;`,
	} {
		got := eval[string](p, `(() => {
			const el = md.render(`+js(in)+`);
			const allowed = new Set(["P", "STRONG", "EM", "S", "CODE", "PRE", "DIV", "BUTTON", "SPAN", "BR"]);
			const bad = [...el.querySelectorAll("*")].filter(e => !allowed.has(e.tagName) || [...e.attributes].some(a => a.name.startsWith("on")));
			return bad.map(e => e.outerHTML).join(" ");
		})()`)
		if got != "" {
			t.Errorf("%q made elements of its own: %s", in, got)
		}
	}
	for in, want := range map[string]string{
		`<img src=x onerror=alert(1)> <b>no</b>`:     `<img src=x onerror=alert(1)> <b>no</b>`,
		`&lt;b&gt; &#60;b&#62; &copy;`:               `&lt;b&gt; &#60;b&#62; &copy;`,
		"```html\n<script>alert(1)</script>\n```":    "<script>alert(1)</script>Copy",
		"<div onclick=\"alert(1)\">\n**bold**</div>": `<div onclick="alert(1)">bold</div>`,
	} {
		if got := eval[string](p, `md.render(`+js(in)+`).textContent`); got != want {
			t.Errorf("%q shows %q, want %q", in, got, want)
		}
	}
}

// TestUnitsMarkdownBlocks: what people write in a chat renders as the elements they expect,
// and a message built to be heavy (thousands of nested quotes or lists, runs of markers)
// renders, nesting no deeper than the parser's limit.
func TestUnitsMarkdownBlocks(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, markdownEntry)
	for in, want := range map[string]string{
		"**b** *i* _i_ ~~s~~ `c`":       `<strong>b</strong> <em>i</em> <em>i</em> <s>s</s> <code class="code">c</code>`,
		"line one\nline two":            `line one<br>line two`,
		"> quoted\n> still\n\nafter":    `<blockquote class="md-quote"><p class="md-p">quoted<br>still</p></blockquote><p class="md-p">after</p>`,
		"- one\n- two **b**":            `<ul class="md-list"><li>one</li><li>two <strong>b</strong></li></ul>`,
		"3. three\n4. four":             `<ol class="md-list" start="3"><li>three</li><li>four</li></ol>`,
		"# Big\ntext":                   `<p class="md-heading md-h1">Big</p><p class="md-p">text</p>`,
		"a ~one tilde~ b":               `a ~one tilde~ b`,
		"    indented is text":          `indented is text`,
		"Title\n===":                    `Title<br>===`,
		"hi <@a1> and <@me> and <@zz>":  `hi <button type="button" class="mention">@Alice</button> and <button type="button" class="mention mention-me">@Me</button> and <button type="button" class="mention">@unknown member</button>`,
		"[<@a1>](https://example.org)":  `<a href="https://example.org" target="_blank" rel="noopener noreferrer nofollow ugc"><span class="mention">@Alice</span></a>`,
		"`<@a1>` :party:":               `<code class="code">&lt;@a1&gt;</code> <img class="custom-emoji" src="https://example.org/party.png" alt=":party:" title=":party:" width="22" height="22">`,
		"a | b || c":                    `a | b || c`,
		"2 * 3 * 4 and snake_case_name": `2 * 3 * 4 and snake_case_name`,
		"a\n\n```\nplain\n```":          `<p class="md-p">a</p><div class="code-wrap"><pre class="code-block"><code>plain</code></pre><button type="button" class="code-copy" aria-label="Copy code" title="Copy code">Copy</button></div>`,
	} {
		if got := eval[string](p, `md.html(`+js(in)+`)`); got != want {
			t.Errorf("%q renders as\n%s\nwant\n%s", in, got, want)
		}
	}
	// Spoilers: hidden (out of reach: inert, not read) until clicked, with what they hold.
	got := eval[string](p, `(() => {
		const el = md.render("a ||secret **bold** [l](https://example.org)|| and || spaced || b");
		const s = el.querySelectorAll(".spoiler");
		const before = [...s].map(x => x.getAttribute("role") + " " + x.querySelector(".spoiler-content").inert + " " + x.querySelector(".spoiler-content").getAttribute("aria-hidden")).join(", ");
		return before;
	})()`)
	if got != "button true true, button true true" {
		t.Errorf("the spoilers before a click: %s", got)
	}
	// Heavy messages render, their nesting held at the parser's limit.
	for _, in := range []string{
		strings.Repeat(">", 8000),
		strings.Repeat("- ", 4000) + "x",
		strings.Repeat("*", 4000) + "x" + strings.Repeat("*", 4000),
		strings.Repeat("[", 4000) + "x" + strings.Repeat("](https://a.example)", 200),
		strings.Repeat("||a ", 2000),
		strings.Repeat("**a", 2600),
	} {
		depth := eval[int](p, `(() => { const el = md.render(`+js(in)+`); let max = 0; const walk = (e, d) => { max = Math.max(max, d); for (const c of e.children) walk(c, d + 1); }; walk(el, 0); return max; })()`)
		if depth > 24 {
			t.Errorf("%.20q...: elements %d deep", in, depth)
		}
	}
}

// TestUnitsPlainTextOfRichMarkdown: what is read out of a message (notifications, the screen
// reader's announcements, search results) has its words without the markers, and never what a
// spoiler hides.
func TestUnitsPlainTextOfRichMarkdown(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, markdownEntry)
	for in, want := range map[string]string{
		"> quoted\n- one\n- two\n\n1. first":        "quoted one two first",
		"~~gone~~ and ||the butler did it|| really": "gone and (spoiler) really",
		"# Heading\ntext":                           "Heading text",
		"code:\n```go\nfunc main() {}\n```\ndone":   "code: func main() {} done",
		"[<@a1>](https://example.org) :party:":      "@Alice :party:",
	} {
		if got := eval[string](p, `md.plain(`+js(in)+`)`); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnitsShortcodes: the standard shortcodes of Slack and GitHub, and the completion's order:
// a name that starts with what was typed first, the emoji people use most before the others.
func TestUnitsShortcodes(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, markdownEntry)
	got := evalAwait[string](p, `md.table().then(t => [t.size > 2000, t.get("tada"), t.get("+1"), t.get("thumbsup"), t.get("heart"), t.get("smile"), t.get("joy"), t.get("slightly_smiling_face"), t.get("rainbow-flag"), t.get("rainbow_flag"), t.get("nope")].join(" "))`)
	if want := "true 🎉 👍 👍 ❤️ 😄 😂 🙂 🏳️‍🌈 🏳️‍🌈 "; got != want {
		t.Errorf("the table: %q, want %q", got, want)
	}
	if bad := evalAwait[string](p, `md.table().then(t => [...t.keys()].filter(n => !/^[a-z0-9_+-]{1,62}$/.test(n)).join(" "))`); bad != "" {
		t.Errorf("names the :name: rule cannot match: %s", bad)
	}
	for q, want := range map[string]string{
		"ta":     "🎉 tada",
		"+1":     "👍 +1",
		"thu":    "👍 thumbsup",
		"hear":   "❤️ heart",
		"par":    "(custom) party",
		"smile":  "😄 smile",
		"zzzzzz": "",
	} {
		got := evalAwait[string](p, `md.search(`+js(q)+`, [["party", "https://example.org/party.png"]]).then(l => l[0] ? (l[0].char ?? "(custom)") + " " + l[0].name : "")`)
		if got != want {
			t.Errorf("first offered for :%s: %q, want %q", q, got, want)
		}
	}
	// One name per emoji: :+1: and :thumbsup: are not both offered.
	if got := evalAwait[string](p, `md.search("thumbs").then(l => l.map(e => e.char).join(""))`); strings.Count(got, "👍") != 1 {
		t.Errorf("thumbs: %q", got)
	}
}
