package app_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// untrustedEntry renders one message with the link previews a server gave, as the client does.
const untrustedEntry = `
import { h, render } from "preact";
import { create } from "@bufbuild/protobuf";
import { MessageSchema, LinkPreviewSchema } from "./src/gen/svc/v1/types_pb";
import { MessageItem } from "./src/ui/MessageItem";
import { previewKey } from "./src/state/selectors";
globalThis.renderPreviews = (urls) => {
  const m = create(MessageSchema, { id: "m1", channelId: "c1", authorId: "a1", text: "see https://example.org/" });
  const previews = new Map([[previewKey(m), urls.map((url) => create(LinkPreviewSchema, { url, title: "t " + url }))]]);
  const state = { members: new Map(), emoji: new Map(), previews, channels: new Map() };
  // The previews are there already: nothing asks the (absent) server for them.
  const act = { loadPreviews: () => {} };
  const shared = { state, act, base: "http://unit.invalid", api: {}, store: {} };
  const root = document.body.appendChild(document.createElement("div"));
  render(h(MessageItem, { shared, message: m, grouped: false, target: false, inThread: false, actions: { onMember: () => {} } }), root);
  return [...root.querySelectorAll(".preview")].map((a) => a.getAttribute("href") ?? "(no href)");
};
`

// TestUntrustedPreviewLinksAreWebLinks: a preview's url becomes a link only when it is an http
// or https URL. The client may be pointed at any server (#/?url=), which then writes previews
// into this origin's page: one whose url is javascript:, data:, vbscript: or another scheme
// (in any case, after white space or control characters) is not shown. (Before, the url was
// the href as the server sent it; only the page's Content-Security-Policy stood between a
// javascript: preview and a click.)
func TestUntrustedPreviewLinksAreWebLinks(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, untrustedEntry)
	hostile := []string{
		"javascript:alert(1)",
		"JaVaScRiPt:alert(1)",
		" \t\njavascript:alert(1)",
		"\x01javascript:alert(1)",
		"java\tscript:alert(1)",
		"data:text/html,<script>alert(1)</script>",
		"vbscript:msgbox(1)",
		"ms-msdt:/id PCWDiagnostic",
		"file:///etc/passwd",
		"//example.net/",
		"",
	}
	good := []string{"https://example.org/", "HTTP://Example.org/a"}
	urls, _ := json.Marshal(append(hostile, good...))
	got := eval[[]string](p, `renderPreviews(`+string(urls)+`)`)
	if len(got) != len(good) {
		t.Fatalf("previews shown: %q, want only the web links %q", got, good)
	}
	for i, href := range got {
		if href != good[i] {
			t.Errorf("preview %d: href %q, want %q", i, href, good[i])
		}
	}
}

// signInEntry exposes beginSignIn on a blank page, with storage in memory.
const signInEntry = `
import { beginSignIn } from "./src/lib/oidc";
for (const name of ["sessionStorage", "localStorage"]) {
  const m = new Map();
  const store = { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, String(v)), removeItem: (k) => void m.delete(k) };
  Object.defineProperty(window, name, { value: store, configurable: true });
}
globalThis.signIn = (issuer) => {
  globalThis.signInResult = "pending";
  beginSignIn("http://unit.invalid", { issuer, clientId: "hearth-web", builtIn: false }).then(
    () => (globalThis.signInResult = "left for " + location.href),
    (e) => (globalThis.signInResult = String(e.message)),
  );
};
`

// TestUntrustedIssuerEndpointsAreWebLinks: the sign-in sends the page to the authorization
// endpoint the issuer's discovery document names, and the issuer is whatever the server the
// client was pointed at lists: one that is not an http or https URL (javascript:, a scheme
// that opens a program) is refused, and the page stays.
func TestUntrustedIssuerEndpointsAreWebLinks(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, signInEntry)
	for _, endpoint := range []string{"javascript:alert(1)", " JavaScript:alert(1)", "ms-msdt:/id PCWDiagnostic"} {
		issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]string{"authorization_endpoint": endpoint, "token_endpoint": "https://issuer.example/token"})
		}))
		p.eval0(`signIn(` + js(issuer.URL) + `)`)
		p.waitFor("the sign-in refused for "+endpoint, `signInResult.endsWith("names an authorization or token endpoint that is not an http or https URL")`)
		issuer.Close()
	}
}
