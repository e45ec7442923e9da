package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// community starts a server whose owner (joined through the API) made #general and #random.
func community(t *testing.T) (*webtest.Server, *webtest.Client, map[string]string) {
	t.Helper()
	srv := webtest.Start(t)
	owner := srv.Join("olivia")
	ids := map[string]string{}
	for _, name := range []string{"general", "random"} {
		res, err := owner.Chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{
			Name: name, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Topic: "Talk about " + name,
		}))
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = res.Msg.GetChannel().GetId()
	}
	return srv, owner, ids
}

func TestBrowserSmoke(t *testing.T) {
	browser := startBrowser(t)
	srv, _, _ := community(t)
	alice := openPage(t, browser, "alice", 1280, 800)
	alice.signIn(srv, "alice")
	alice.join("Alice")
	alice.openChannel("general")
	alice.send("hello **world**")
	alice.seesOnce("hello world")
	if dir := os.Getenv("HEARTH_SCREENSHOT_DIR"); dir != "" {
		buf, _ := chromedp.Run(alice.ctx, chromedp.CaptureScreenshot())
		os.WriteFile(filepath.Join(dir, "smoke.png"), buf, 0o644)
	}
	fmt.Println(alice.describe())
	alice.noErrors()
}
