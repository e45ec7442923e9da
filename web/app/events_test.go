package app_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
)

// webSockets records the URLs of the WebSockets the page opens.
func webSockets(p *page) func() []string {
	var mu sync.Mutex
	var urls []string
	created := chromedp.Events(p.ctx, network.WebSocketCreated)
	go func() {
		for ev, err := range created {
			if err != nil {
				return
			}
			mu.Lock()
			urls = append(urls, ev.URL)
			mu.Unlock()
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), urls...)
	}
}

// TestBrowserLiveEventsOverAWebSocket: the client takes its live events over GET /events, a
// WebSocket, and a message sent comes live over it. Behind a proxy that does not pass the
// upgrade (the server sees GET /events without it, refuses it, and the WebSocket never opens),
// the client takes Subscribe instead, and the next message comes live all the same; once the
// upgrade passes again, the next reconnect takes the WebSocket.
func TestBrowserLiveEventsOverAWebSocket(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	eventsURL := "ws" + strings.TrimPrefix(srv.URL, "http") + "/events?after_seq="

	alice := openPage(t, browser, "alice", 1000, 700)
	aliceSockets := webSockets(alice)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	send(t, owner, &svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "Over the WebSocket"})
	alice.waitFor("the message, live", `!!`+messageJS(".channel-view", "Over the WebSocket"))
	if got := aliceSockets(); len(got) == 0 || !strings.HasPrefix(got[0], eventsURL) {
		t.Errorf("alice's WebSockets: %q, want one to %s...", got, eventsURL)
	}
	alice.noErrors(srv.URL)

	t.Log("behind a proxy that does not pass the upgrade: Subscribe")
	srv.StripUpgrades(true)
	bob := openPage(t, browser, "bob", 1000, 700)
	bobSockets := webSockets(bob)
	bob.signIn(srv, "bob")
	bob.join("Bob")
	bob.openChannel("general")
	send(t, owner, &svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "Over Subscribe"})
	bob.waitFor("the message, live", `!!`+messageJS(".channel-view", "Over Subscribe"))
	if got := bobSockets(); len(got) == 0 || !strings.HasPrefix(got[0], eventsURL) {
		t.Errorf("bob's WebSockets: %q, want one tried to %s...", got, eventsURL)
	}
	if eval[bool](bob, `document.querySelector(".outage") !== null`) {
		t.Error("bob's page says it has no connection")
	}

	t.Log("the upgrade passes again: bob's next stream is a WebSocket")
	srv.StripUpgrades(false)
	tried := len(bobSockets())
	srv.Restart() // ends the streams: the pages reconnect
	send(t, owner, &svcv1.SendMessageRequest{ChannelId: ids["general"], Text: "Back on the WebSocket"})
	bob.waitFor("the message, live", `!!`+messageJS(".channel-view", "Back on the WebSocket"))
	if got := bobSockets(); len(got) <= tried || !strings.HasPrefix(got[len(got)-1], eventsURL) {
		t.Errorf("bob's WebSockets: %q, want one more to %s... after the reconnect", got, eventsURL)
	}
	bob.noErrors(srv.URL)
}
