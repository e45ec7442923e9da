package app_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/webtest"
)

// notifyOf is c's NotificationService.
func notifyOf(srv *webtest.Server, c *webtest.Client) svcv1connect.NotificationServiceClient {
	return svcv1connect.NewNotificationServiceClient(webtest.HTTPClient(), srv.URL, connect.WithInterceptors(auth.WithBearer(c.Token)))
}

// prefsOf is what the server has of c's notification preferences.
func prefsOf(t *testing.T, srv *webtest.Server, c *webtest.Client) *svcv1.NotificationPrefs {
	t.Helper()
	res, err := notifyOf(srv, c).GetNotificationPrefs(context.Background(), connect.NewRequest(&svcv1.GetNotificationPrefsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetPrefs()
}

// devicesOf lists c's push subscriptions on the server.
func devicesOf(t *testing.T, srv *webtest.Server, c *webtest.Client) []*svcv1.PushSubscription {
	t.Helper()
	res, err := notifyOf(srv, c).ListPushSubscriptions(context.Background(), connect.NewRequest(&svcv1.ListPushSubscriptionsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetSubscriptions()
}

// grantNotifications answers the browser's question about notifications for the page's site
// with "Allow", as the person would.
func (p *page) grantNotifications(srv *webtest.Server) {
	p.t.Helper()
	for _, name := range []string{"notifications", "push"} {
		browserCall(p, "allow "+name, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name, UserVisibleOnly: true}, Setting: cdpbrowser.PermissionSettingGranted,
			Origin: srv.URL, BrowserContextID: chromedp.FromContext(p.ctx).BrowserContextID,
		})
	}
}

// pushStub is a push service's subscription that the page's PushManager hands out in place of
// the browser's own: headless Chromium subscribes only through Google's push service, which no
// test may reach (PushManager.subscribe waits for it and never answers). The keys are real
// (the server checks them), the endpoint is the test's own push service, and the subscription
// is kept in the page's storage as a browser keeps its own, across reloads.
type pushStub struct {
	endpoint string
	p256dh   string
	auth     string
}

func newPushStub(t *testing.T, endpoint string) pushStub {
	t.Helper()
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	secret := make([]byte, 16)
	rand.Read(secret)
	return pushStub{endpoint: endpoint, p256dh: base64.RawURLEncoding.EncodeToString(priv.PublicKey().Bytes()), auth: base64.RawURLEncoding.EncodeToString(secret)}
}

// install puts the stub in every document the page opens from now on, and records the app
// badges the page sets (window.badges: each count, 0 for a cleared badge).
func (s pushStub) install(p *page) {
	p.t.Helper()
	script := `(() => {
  const KEY = "test.pushSubscription";
  const bytes = (b64) => Uint8Array.from(atob(b64.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)).buffer;
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const make = (rec) => rec && {
    endpoint: rec.endpoint,
    options: { userVisibleOnly: true, applicationServerKey: bytes(rec.key) },
    getKey: (name) => bytes(name === "p256dh" ? ` + js(s.p256dh) + ` : ` + js(s.auth) + `),
    unsubscribe: () => { localStorage.removeItem(KEY); window.pushStub.unsubscribed++; return Promise.resolve(true); },
  };
  window.pushStub = { subscribed: [], unsubscribed: 0 };
  PushManager.prototype.subscribe = function (opts) {
    const key = b64(opts.applicationServerKey instanceof ArrayBuffer ? opts.applicationServerKey : opts.applicationServerKey.buffer);
    window.pushStub.subscribed.push({ userVisibleOnly: opts.userVisibleOnly, key });
    const rec = { endpoint: localStorage.getItem("test.pushEndpoint") || ` + js(s.endpoint) + `, key };
    localStorage.setItem(KEY, JSON.stringify(rec));
    return Promise.resolve(make(rec));
  };
  PushManager.prototype.getSubscription = function () {
    return Promise.resolve(make(JSON.parse(localStorage.getItem(KEY) || "null")));
  };
  window.badges = [];
  Navigator.prototype.setAppBadge = function (n) { window.badges.push(n); return Promise.resolve(); };
  Navigator.prototype.clearAppBadge = function () { window.badges.push(0); return Promise.resolve(); };
})();`
	p.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	}))
}

// pushReceiver is a push service on loopback: it takes what the server pushes to a device and
// keeps the requests' headers (the payload, encrypted for the device, is the server's tests'
// business: web/pushservice_helpers_test.go decrypts it).
type pushReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []http.Header
}

func newPushReceiver(t *testing.T) *pushReceiver {
	r := &pushReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		h := req.Header.Clone()
		h.Set("X-Path", req.URL.Path)
		r.got = append(r.got, h)
		r.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *pushReceiver) received() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.got...)
}

const bannerJS = `document.querySelector(".push-banner")`

// TestBrowserPushAskedAfterActivityThenSubscribed: the client never asks about notifications
// on the first load; once the person has sent a message, a banner asks. "Turn on
// notifications", the permission given, subscribes with the server's VAPID key and registers
// the subscription with the server (the device named from the browser); the server's pushes
// then reach that endpoint. A subscription the browser changed is registered again in place of
// the old one at the next start, and one removed from another device stays off here.
func TestBrowserPushAskedAfterActivityThenSubscribed(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t, webtest.WithPushAllowPrivate())
	ctx := context.Background()
	bob := srv.Join("bob")
	rename(t, bob, "Bob", "", "")
	receiver := newPushReceiver(t)
	stub := newPushStub(t, receiver.srv.URL+"/push/olivia-laptop")

	olivia := openPage(t, browser, "olivia", 1280, 800)
	stub.install(olivia)
	olivia.signIn(srv, "olivia")
	olivia.openChannel("general")
	// The service worker is registered at once (it makes the client installable); nobody is asked.
	olivia.waitFor("the service worker", `navigator.serviceWorker.getRegistration().then(r => !!r && r.scope.endsWith("/app/"))`)
	time.Sleep(1500 * time.Millisecond)
	if eval[bool](olivia, "!!"+bannerJS) {
		t.Fatal("the first load asks about notifications")
	}
	if n := eval[int](olivia, `Notification.permission === "default" ? window.pushStub.subscribed.length : -1`); n != 0 {
		t.Fatalf("before anything is asked: permission %q, %d subscriptions", eval[string](olivia, "Notification.permission"), n)
	}

	t.Log("a message sent: the banner asks")
	olivia.send("Morning all")
	olivia.waitFor("the banner", bannerJS+`?.textContent.includes("Get notified when you are away?")`)
	olivia.allNamed("the banner")
	olivia.grantNotifications(srv)
	olivia.clickJS("Turn on notifications", buttonJS(".push-banner", "Turn on notifications"))
	olivia.waitFor("the banner gone", "!"+bannerJS)
	devices := devicesOf(t, srv, owner)
	if len(devices) != 1 || devices[0].GetDeviceName() != "Chrome on Linux" {
		t.Fatalf("the server's devices after turning on: %v", devices)
	}
	config, err := notifyOf(srv, owner).GetPushConfig(ctx, connect.NewRequest(&svcv1.GetPushConfigRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := eval[string](olivia, `JSON.stringify(window.pushStub.subscribed)`); got != `[{"userVisibleOnly":true,"key":"`+config.Msg.GetVapidPublicKey()+`"}]` {
		t.Errorf("subscribed with %s, want the server's key %s", got, config.Msg.GetVapidPublicKey())
	}

	t.Log("away: a mention is pushed to the device the client registered")
	olivia.click(".me-button")
	olivia.clickJS("Show me as away", `[...document.querySelectorAll("dialog[open] label.check")].find(l => l.textContent.includes("Show me as away")).querySelector("input")`)
	olivia.waitFor("away", `document.querySelector(".me-button .presence")?.getAttribute("aria-label") === "away"`)
	olivia.closeDialog()
	if _, err := bob.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "<@" + owner.Member.GetId() + "> the keys?"})); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the push", func() bool { return len(receiver.received()) == 1 })
	h := receiver.received()[0]
	if h.Get("X-Path") != "/push/olivia-laptop" || h.Get("Content-Encoding") != "aes128gcm" || h.Get("Urgency") != "high" ||
		!strings.HasPrefix(h.Get("Authorization"), "vapid t=") || !strings.Contains(h.Get("Authorization"), "k="+config.Msg.GetVapidPublicKey()) {
		t.Fatalf("the push: %v", h)
	}

	t.Log("the browser changed the subscription: registered again at the next start, in place of the old")
	olivia.eval0(`localStorage.setItem("test.pushEndpoint", ` + js(receiver.srv.URL+"/push/olivia-laptop-2") + `), localStorage.setItem("test.pushSubscription", JSON.stringify({...JSON.parse(localStorage.getItem("test.pushSubscription")), endpoint: ` + js(receiver.srv.URL+"/push/olivia-laptop-2") + `}))`)
	olivia.run(chromedp.Reload())
	olivia.waitFor("the chat", `!!document.querySelector(".chat")`)
	waitUntil(t, "the new subscription in place of the old", func() bool {
		d := devicesOf(t, srv, owner)
		return len(d) == 1 && d[0].GetId() != devices[0].GetId()
	})
	renewed := devicesOf(t, srv, owner)[0]

	t.Log("removed from another device: it stays off here")
	if _, err := notifyOf(srv, owner).RemovePushSubscription(ctx, connect.NewRequest(&svcv1.RemovePushSubscriptionRequest{Id: renewed.GetId()})); err != nil {
		t.Fatal(err)
	}
	olivia.run(chromedp.Navigate(srv.URL + "/app/#/settings/notifications"))
	olivia.waitFor("this device off", `document.querySelector(".notify-page .device-state [role=status]")?.textContent === "Notifications are off on this device."`)
	time.Sleep(500 * time.Millisecond)
	if d := devicesOf(t, srv, owner); len(d) != 0 {
		t.Fatalf("a device removed elsewhere came back: %v", d)
	}
	olivia.clickJS("Turn on notifications", buttonJS(".notify-page .device-state", "Turn on notifications"))
	olivia.waitFor("this device on", `document.querySelector(".notify-page .device-state [role=status]")?.textContent.startsWith("Notifications are on for this device")`)
	olivia.waitFor("this device listed", `[...document.querySelectorAll(".device-item .device-name")].map(e => e.textContent).join() === "Chrome on Linux (this device)"`)
	if d := devicesOf(t, srv, owner); len(d) != 1 {
		t.Fatalf("turned on again: %v", d)
	}

	t.Log("signing out removes this device, here and on the server")
	olivia.click(".me-button")
	olivia.clickJS("Sign out", `[...document.querySelectorAll("dialog[open] button")].find(b => b.textContent.startsWith("Sign out"))`)
	olivia.waitFor("signed out", `!document.querySelector(".chat") && !!document.querySelector(".welcome")`)
	if d := devicesOf(t, srv, owner); len(d) != 0 {
		t.Errorf("after signing out, the server still pushes to %v", d)
	}
	if n := eval[int](olivia, `window.pushStub.unsubscribed`); n != 1 {
		t.Errorf("the browser's subscription was ended %d times, want 1", n)
	}
	olivia.noErrors(srv.URL)
}

// TestBrowserPushNotNowIsRemembered: "Not now" closes the banner, and a reload does not bring it back.
func TestBrowserPushNotNowIsRemembered(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	p := openPage(t, browser, "olivia", 1000, 800)
	p.signIn(srv, "olivia")
	p.openChannel("general")
	p.send("hello")
	p.waitFor("the banner", "!!"+bannerJS)
	p.clickJS("Not now", buttonJS(".push-banner", "Not now"))
	p.waitFor("the banner gone", "!"+bannerJS)
	p.run(chromedp.Reload())
	p.openChannel("general")
	p.send("again")
	time.Sleep(time.Second)
	if eval[bool](p, "!!"+bannerJS) {
		t.Fatal("the banner came back after Not now")
	}
	p.noErrors(srv.URL)
}

// TestBrowserInstallableWorkerBadgeAndOpen: in a browser profile of its own (Chromium finds
// nothing installable in an incognito context), the client registers its service worker by
// itself and Chromium finds it installable; the app badge counts the mentions and DMs not
// read, and clears when they are; a "hearth-open" message from the worker (a notification
// clicked while this tab was not under it) takes the tab to the message, or for a report's
// notification (#/reports) to the reports.
func TestBrowserInstallableWorkerBadgeAndOpen(t *testing.T) {
	t.Parallel()
	srv, owner, ids := community(t)
	ctx := context.Background()
	bob := srv.Join("bob")
	b := startOwnBrowser(t) // the browser's own profile: a worker of its own
	tab, cancelTab := chromedp.NewContext(b)
	t.Cleanup(cancelTab)
	p := &page{t: t, name: "olivia", ctx: tab}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1000, 800)); err != nil {
		t.Fatal(err)
	}
	p.collectErrors()
	p.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, serviceworker.Enable, cdp.Empty{})
		return err
	}))
	newPushStub(t, "http://127.0.0.1:9/unused").install(p)
	p.signIn(srv, "olivia")
	p.openChannel("random")
	p.waitFor("the page under the service worker", `navigator.serviceWorker.controller !== null`)
	if errs := p.installabilityErrors(); len(errs) > 0 {
		b, _ := json.Marshal(errs)
		t.Fatalf("Chromium finds the client not installable: %s", b)
	}

	t.Log("the badge: a mention in #general, then a DM")
	m, err := bob.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "<@" + owner.Member.GetId() + "> look"}))
	if err != nil {
		t.Fatal(err)
	}
	p.waitFor("the badge at 1", `window.badges.at(-1) === 1`)
	dm, err := bob.Chat.OpenDM(ctx, connect.NewRequest(&svcv1.OpenDMRequest{MemberIds: []string{owner.Member.GetId()}}))
	if err != nil {
		t.Fatal(err)
	}
	p.sendAPI(t, bob, dm.Msg.GetChannel().GetId(), "psst")
	p.waitFor("the badge at 2", `window.badges.at(-1) === 2`)

	t.Log("a notification clicked: the worker tells the tab where to go")
	url := srv.URL + "/app/#/c/" + ids["general"] + "/m/" + m.Msg.GetMessage().GetId()
	inWorker(t, p, srv.URL+"/app/", `clients.matchAll({type: "window", includeUncontrolled: true}).then(cs => Promise.all(cs.map(c => c.postMessage({type: "hearth-open", url: `+js(url)+`}))))`)
	p.waitFor("the message open", `location.hash === `+js("#/c/"+ids["general"]+"/m/"+m.Msg.GetMessage().GetId())+` && !!document.querySelector(`+js(`.channel-view article.msg[data-id="`+m.Msg.GetMessage().GetId()+`"]`)+`)`)
	// Read: the DM's message is left.
	p.waitFor("the badge at 1", `window.badges.at(-1) === 1`)
	// Nothing but this page is followed.
	inWorker(t, p, srv.URL+"/app/", `clients.matchAll({type: "window", includeUncontrolled: true}).then(cs => Promise.all(cs.map(c => c.postMessage({type: "hearth-open", url: "https://elsewhere.example/app/#/c/x"}))))`)
	time.Sleep(300 * time.Millisecond)
	if h := eval[string](p, "location.href"); !strings.HasPrefix(h, srv.URL) {
		t.Fatalf("the tab followed a link elsewhere: %s", h)
	}
	p.clickJS("the DM", sideLinkJS(dm.Msg.GetChannel().GetId()))
	p.waitFor("the badge cleared", `window.badges.at(-1) === 0`)

	t.Log("a report's notification: #/reports opens the reports")
	inWorker(t, p, srv.URL+"/app/", `clients.matchAll({type: "window", includeUncontrolled: true}).then(cs => Promise.all(cs.map(c => c.postMessage({type: "hearth-open", url: `+js(srv.URL+"/app/#/reports")+`}))))`)
	p.waitFor("the reports", `document.querySelector("dialog[open]")?.getAttribute("aria-label") === "Moderation" && document.querySelector('dialog[open] [role=tab][aria-selected="true"]')?.textContent.startsWith("Reports")`)
	p.closeDialog()

	t.Log("a browser without the Notification constructor (a phone's): the worker shows the mention")
	p.grantNotifications(srv)
	p.waitFor("the permission", `Notification.permission === "granted"`)
	// The constructor throws, as on Android; the registration's showNotification is watched
	// (whether headless Chromium then lists the notification is its own business, and varies).
	p.eval0(`(() => {
		const N = window.Notification;
		window.Notification = class { constructor() { throw new TypeError("Illegal constructor"); } static get permission() { return N.permission; } };
		const show = ServiceWorkerRegistration.prototype.showNotification;
		window.shown = [];
		ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
			return show.call(this, title, options).then(() => void window.shown.push({ title, body: options.body, url: options.data.url }));
		};
	})()`)
	p.openChannel("random")
	m2, err := bob.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "<@" + owner.Member.GetId() + "> again"}))
	if err != nil {
		t.Fatal(err)
	}
	p.waitFor("the worker's notification", `window.shown.length === 1`)
	want := `[{"title":"bob in #general","body":"@olivia again","url":` + js(srv.URL+"/app/#/c/"+ids["general"]+"/m/"+m2.Msg.GetMessage().GetId()) + `}]`
	if got := eval[string](p, `JSON.stringify(window.shown)`); got != want {
		t.Errorf("shown: %s\nwant %s", got, want)
	}
	p.noErrors(srv.URL)
}

// installabilityErrors is what Chromium finds missing to install the page as an app: none, once
// it has looked at the manifest and the service worker (asked until then, for up to waitLimit).
func (p *page) installabilityErrors() []*cdppage.InstallabilityError {
	p.t.Helper()
	var errs []*cdppage.InstallabilityError
	deadline := time.Now().Add(waitLimit)
	for {
		p.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			res, err := cdp.Call(ctx, tg, cdppage.GetInstallabilityErrors, cdp.Empty{})
			errs = res.InstallabilityErrors
			return err
		}))
		if len(errs) == 0 || time.Now().After(deadline) {
			return errs
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// inWorker runs a JavaScript promise in the page's service worker (started first: an idle one
// is stopped, and has no target).
func inWorker(t *testing.T, p *page, scope, expr string) {
	t.Helper()
	p.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, serviceworker.StartWorker, serviceworker.StartWorkerParams{ScopeURL: scope})
		return err
	}))
	var sw target.ID
	waitUntil(t, "the service worker's target", func() bool {
		targets, err := chromedp.Targets(p.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range targets {
			if ti.Type == "service_worker" && strings.HasSuffix(ti.URL, "/app/sw.js") {
				sw = ti.TargetID
			}
		}
		return sw != ""
	})
	swCtx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(sw))
	defer cancel()
	runCtx, cancelRun := context.WithTimeout(swCtx, waitLimit)
	defer cancelRun()
	yes := true
	err := chromedp.Do(runCtx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, AwaitPromise: &yes})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("%s: %v", res.ExceptionDetails.Text, res.ExceptionDetails.Exception)
		}
		return nil
	}))
	if err != nil {
		t.Fatalf("in the service worker: %v", err)
	}
}

// waitUntil waits for cond, for at most waitLimit.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not so after %s", what, waitLimit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
