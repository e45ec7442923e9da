package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"

	"hearth/web/webtest"
)

// TestClientIsInstallableAndShowsPushes: the client's manifest and service worker make it
// installable (Chromium's installability check finds nothing missing); a push delivered to the
// service worker (as a push service would, through the DevTools protocol: a real one is a
// vendor's) shows as a notification with the payload's title, body, tag and link; and the
// click handler takes the open tab to the message.
func TestClientIsInstallableAndShowsPushes(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t)
	alice := srv.Join("alice")
	_ = alice
	b := startOwnBrowser(t) // the browser's own profile: a worker of its own
	// A tab of the browser's own profile: Chromium installs nothing from a context of its own
	// (openPage's), which it counts as incognito.
	tab, cancelTab := chromedp.NewContext(b)
	t.Cleanup(cancelTab)
	p := &page{t: t, name: "alice", ctx: tab}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1000, 800)); err != nil {
		t.Fatal(err)
	}
	p.collectErrors()
	p.signIn(srv, "alice")

	// Chromium sends no notification without the permission: granted as a person would.
	p.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, name := range []string{"notifications", "push"} {
			_, err := cdp.Call(ctx, tg, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name, UserVisibleOnly: true},
				Setting:    browser.PermissionSettingGranted,
				Origin:     srv.URL,
			})
			if err != nil {
				return err
			}
		}
		_, err := cdp.Call(ctx, tg, serviceworker.Enable, cdp.Empty{})
		return err
	}))
	registrations := chromedp.Events(p.ctx, serviceworker.WorkerRegistrationUpdated)
	p.eval0(`navigator.serviceWorker.register("sw.js")`)
	p.waitFor("the service worker to control the page", `navigator.serviceWorker.controller !== null || (navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller !== null))`)

	// The manifest: the community's name, standalone, /app/, and icons Chromium takes.
	if errs := p.installabilityErrors(); len(errs) > 0 {
		b, _ := json.Marshal(errs)
		t.Fatalf("Chromium finds the client not installable: %s", b)
	}
	manifest := awaitString(p, `fetch("manifest.webmanifest").then(r => r.text())`)
	if !strings.Contains(manifest, `"display":"standalone"`) || !strings.Contains(manifest, `"start_url":"/app/"`) || !strings.Contains(manifest, `"name":"Hearth"`) {
		t.Fatalf("manifest: %s", manifest)
	}

	// A push, as the server sends it.
	var reg serviceworker.RegistrationID
	for ev, err := range registrations {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ev.Registrations {
			if strings.HasSuffix(r.ScopeURL, "/app/") && !r.IsDeleted {
				reg = r.RegistrationID
			}
		}
		if reg != "" {
			break
		}
	}
	url := srv.URL + "/app/#/c/chan-1/m/msg-1"
	data, _ := json.Marshal(map[string]string{
		"type": "message", "channel_id": "chan-1", "message_id": "msg-1", "thread_root_id": "",
		"title": "#general", "body": "bob: hello @alice", "url": url, "tag": "chan-1",
	})
	p.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{Origin: srv.URL, RegistrationID: reg, Data: string(data)})
		return err
	}))
	p.waitFor("the notification to show", `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.length === 1)`)
	shown := awaitString(p, `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => JSON.stringify(ns.map(n => [n.title, n.body, n.tag, n.data.url])))`)
	if want, _ := json.Marshal([][]string{{"#general", "bob: hello @alice", "chan-1", url}}); shown != string(want) {
		t.Fatalf("notifications shown: %s, want %s", shown, want)
	}

	// The click: the worker focuses this tab and takes it to the message. A click on a
	// notification is what lets a worker focus a tab; the protocol cannot click one, so the
	// click handler's own function runs in the worker with focus granted.
	inWorker(t, p, srv.URL+"/app/", `WindowClient.prototype.focus = function () { return Promise.resolve(this); }; openClient(`+js(url)+`).then(c => c ? c.url : "")`)
	p.waitFor("the tab to show the message's address", `location.hash === "#/c/chan-1/m/msg-1"`)
}

// awaitString evaluates a JavaScript promise of a string in the page.
func awaitString(p *page, expr string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return v
}
