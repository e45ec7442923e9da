package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestBrowserOtherOrigin: the client served by one Hearth talks to another one, named by the
// link that opened it, across origins (runs where the server answers CORS preflights).
func TestBrowserOtherOrigin(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	home := webtest.Start(t)
	away, owner, ids := community(t)
	req, _ := http.NewRequest(http.MethodOptions, away.URL+"/svc.v1.ChatService/GetState", nil)
	req.Header.Set("Origin", home.URL)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,connect-protocol-version,content-type")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Fatalf("the CORS preflight got no Access-Control-Allow-Origin (%s)", res.Status)
	}
	settings := "Away Team"
	if _, err := owner.Server.UpdateServerSettings(context.Background(), connect.NewRequest(&svcv1.UpdateServerSettingsRequest{Name: &settings})); err != nil {
		t.Fatal(err)
	}

	alice := openPage(t, browser, "alice", 1280, 800)
	// The client of home, given the address of away.
	alice.run(chromedp.Navigate(fmt.Sprintf("%s/app/#/token?url=%s&token=%s", home.URL, url.QueryEscape(away.URL), url.QueryEscape(away.Token("alice")))))
	alice.join("Alice")
	alice.waitFor("away's community", `document.querySelector(".server-name")?.textContent === "Away Team"`)
	alice.openChannel("general")
	alice.send("hello from another origin")
	alice.seesOnce("hello from another origin")
	list, err := owner.Chat.ListMessages(context.Background(), connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: ids["general"]}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Msg.GetMessages()); n != 1 || list.Msg.GetMessages()[0].GetText() != "hello from another origin" {
		t.Fatalf("away's #general holds %d messages: %v", n, list.Msg.GetMessages())
	}
	alice.mu.Lock()
	alice.requests = nil // the page itself came from home; what follows must all go to away
	alice.mu.Unlock()
	alice.send("and once more")
	alice.seesOnce("and once more")
	alice.noErrors(away.URL)
}
