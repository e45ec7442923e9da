package webtest

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is where the browser tests find Chromium: Debian's package (apt-get install
// chromium).
const ChromiumPath = "/usr/bin/chromium"

// RequireChromium skips t where there is no Chromium, or fails it where CI asks for one
// (HEARTH_REQUIRE_BROWSER): there a missing browser would hide a broken page.
func RequireChromium(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("HEARTH_REQUIRE_BROWSER") != "" {
			t.Fatalf("HEARTH_REQUIRE_BROWSER is set but %s is missing: apt-get install -y chromium", ChromiumPath)
		}
		t.Skipf("no browser at %s (apt-get install -y chromium)", ChromiumPath)
	}
}

// ChromiumOptions are the options every test's Chromium starts with, its profile in dir, then
// extra. Its temporary files go in dir too: the folder of its single-instance socket is removed
// only when Chromium exits by itself, not when a test ends it, and under /tmp some twenty were
// left behind a run.
func ChromiumOptions(dir string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(ChromiumPath),
		chromedp.UserDataDir(dir),
		chromedp.Env("TMPDIR="+dir),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("lang", "en-US"),
		// chromedp's defaults (Translate, BlinkGenPropertyTrees), and the address bar's popup,
		// which Chromium 156 draws as a web page of its own (chrome://omnibox-popup.top-chrome)
		// preloaded in a renderer of its own for every window, a person's browser context being
		// one: about a third of the CPU a two-person test spent, for a popup no test opens.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,WebUIOmniboxPopup,WebUIOmniboxAimPopup"),
	)
	return append(opts, extra...)
}

// StartChromium starts a Chromium for t alone (skipped or failed as RequireChromium says where
// there is none) and returns its browser context. When t ends the browser's process ends and
// its profile is removed.
func StartChromium(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	RequireChromium(t)
	dir, err := os.MkdirTemp("", "hearth-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), ChromiumOptions(dir, extra...)...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		// Not t.TempDir: a browser still writing as it exits would fail the test's end.
		os.RemoveAll(dir)
	})
	return browser
}
