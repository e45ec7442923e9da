package main

import (
	"slices"
	"strings"
	"testing"
)

// loadedOnFirstUse are the modules that must not load at start: the screens away from the chat
// (src/ui/lazy.tsx) and what only they use, the code highlighter, the emoji shortcodes, and
// protobuf's JSON encoding (its writer is in no chunk: nothing calls it). One imported statically from the start (a screen's function used
// by the chat, instead of its type) brings it, and what it imports, back into every start.
var loadedOnFirstUse = []string{
	"src/ui/admin/Settings.tsx",
	"src/ui/admin/Channels.tsx",
	"src/ui/admin/ChannelSettings.tsx",
	"src/ui/admin/Roles.tsx",
	"src/ui/admin/Members.tsx",
	"src/ui/admin/Invites.tsx",
	"src/ui/admin/Setup.tsx",
	"src/ui/admin/parts.tsx",
	"src/ui/moderation/Reports.tsx",
	"src/ui/moderation/Bans.tsx",
	"src/ui/moderation/AuditLog.tsx",
	"src/ui/moderation/Filters.tsx",
	"src/ui/moderation/Lockdown.tsx",
	"src/ui/moderation/ReportDialog.tsx",
	"src/ui/bots/Bots.tsx",
	"src/ui/bots/Plugins.tsx",
	"src/ui/emoji/EmojiManager.tsx",
	"src/lib/emojiFiles.ts",
	"src/ui/search/SearchDialog.tsx",
	"src/ui/search/chips.tsx",
	"src/ui/polls/PollDialog.tsx",
	"src/ui/Profile.tsx",
	"src/ui/Lightbox.tsx",
	"src/ui/Welcome.tsx",
	"src/ui/People.tsx",
	"src/ui/moderation/MemberModeration.tsx",
	"src/ui/moderation/parts.tsx",
	"src/ui/bots/client.ts",
	"src/gen/svc/v1/bot_pb.ts",
	"src/lib/highlighter.ts",
	"node_modules/highlight.js/lib/core.js",
	"src/lib/shortcodeTable.ts",
	"src/lib/protojson.ts",
	"node_modules/@bufbuild/protobuf/dist/esm/from-json.js",
	"node_modules/@bufbuild/protobuf/dist/esm/to-json.js",
}

// TestScreensLoadOnFirstUse builds the bundle as go generate does and reads esbuild's metafile:
// none of loadedOnFirstUse is in app.js or a chunk it imports, each is in a chunk loaded on
// first use, and the start is app.js and the one chunk of the code it shares (chunks.go).
func TestScreensLoadOnFirstUse(t *testing.T) {
	t.Chdir("..")
	b, err := bundle()
	if err != nil {
		t.Fatalf("the bundle (are the client's packages installed? cd web/app && npm ci): %v", err)
	}
	m, err := readMeta(b.metafile)
	if err != nil {
		t.Fatal(err)
	}
	source, err := readMeta(b.source)
	if err != nil {
		t.Fatal(err)
	}
	start := m.startModules()
	bundled := map[string]bool{}
	for _, out := range m.Outputs {
		for in, b := range out.Inputs {
			if b.BytesInOutput > 0 {
				bundled[in] = true
			}
		}
	}
	for _, mod := range loadedOnFirstUse {
		switch {
		case slices.Contains(start, mod):
			t.Errorf("%s loads at start: %s", mod, source.staticPath(mod))
		case !bundled[mod] && strings.HasPrefix(mod, "src/"):
			t.Errorf("%s is in no chunk: moved or renamed? (loadedOnFirstUse)", mod)
		}
	}
	if chunks := m.startChunks(); len(chunks) != 1 {
		t.Errorf("app.js imports %d chunks at start, %q; want the one of the code it shares (chunks.go)", len(chunks), chunks)
	}
	if !slices.Contains(start, "src/ui/Chat.tsx") || !slices.Contains(start, "node_modules/preact/dist/preact.mjs") {
		t.Errorf("the start lacks the chat or preact: the metafile was not understood\n%s", strings.Join(start, "\n"))
	}
}

// staticPath is how mod is reached from src/main.tsx by static imports (not import()), as the
// source has them (the first pass's metafile): a shortest chain of importers.
func (m *meta) staticPath(mod string) string {
	prev := map[string]string{"src/main.tsx": ""}
	queue := []string{"src/main.tsx"}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		if at == mod {
			var chain []string
			for n := mod; n != ""; n = prev[n] {
				chain = append(chain, n)
			}
			slices.Reverse(chain)
			return "imported by " + strings.Join(chain, " -> ")
		}
		for _, imp := range m.Inputs[at].Imports {
			if _, seen := prev[imp.Path]; !seen && imp.Kind == "import-statement" {
				prev[imp.Path] = at
				queue = append(queue, imp.Path)
			}
		}
	}
	return "(no chain of static imports from src/main.tsx found)"
}

// TestPreloadStart: index.html asks for the start's chunks beside app.js, and a page that does
// not load app.js as the build expects fails the build.
func TestPreloadStart(t *testing.T) {
	got, err := preloadStart([]byte("<head>\n"+appScript+"\n</head>"), []string{"chunk-A.js"})
	want := "<head>\n<link rel=\"modulepreload\" href=\"chunk-A.js\">\n" + appScript + "\n</head>"
	if err != nil || string(got) != want {
		t.Errorf("preloadStart = %q, %v; want %q", got, err, want)
	}
	if _, err := preloadStart([]byte(`<script src="app.js"></script>`), nil); err == nil {
		t.Error("a page without the module script passed")
	}
}
