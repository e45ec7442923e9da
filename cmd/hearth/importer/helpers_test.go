package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// pngBytes is a small PNG of w x h pixels of one color.
func pngBytes(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b)
}

// ms is an RFC 3339 time in Unix ms.
func ms(t *testing.T, s string) int64 {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.UnixMilli()
}

// allMessages pages through a channel (or a thread) oldest first.
func allMessages(t *testing.T, c *webtest.Client, chID, root string) []*svcv1.Message {
	t.Helper()
	var out []*svcv1.Message
	before := ""
	for {
		res, err := c.Chat.ListMessages(context.Background(), connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: chID, ThreadRootId: root, BeforeId: before, Limit: 200}))
		if err != nil {
			t.Fatal(err)
		}
		out = append(res.Msg.GetMessages(), out...)
		if !res.Msg.GetHasMore() || len(res.Msg.GetMessages()) == 0 {
			return out
		}
		before = res.Msg.GetMessages()[0].GetId()
	}
}

// state is GetState as c.
func state(t *testing.T, c *webtest.Client) *svcv1.GetStateResponse {
	t.Helper()
	res, err := c.Chat.GetState(context.Background(), connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg
}

// channelNamed finds a channel of the state by name.
func channelNamed(t *testing.T, st *svcv1.GetStateResponse, name string) (*svcv1.Channel, *svcv1.ReadState) {
	t.Helper()
	for i, ch := range st.GetChannels() {
		if ch.GetName() == name {
			return ch, st.GetReadStates()[i]
		}
	}
	t.Fatalf("no channel %q in the state", name)
	return nil, nil
}

// memberNamed finds a member of the state by username.
func memberNamed(t *testing.T, st *svcv1.GetStateResponse, username string) *svcv1.Member {
	t.Helper()
	for _, m := range st.GetMembers() {
		if m.GetUsername() == username {
			return m
		}
	}
	t.Fatalf("no member %q in the state", username)
	return nil
}

// fetchURL gets a URL relative to the server.
func fetchURL(t *testing.T, s *webtest.Server, u string, token ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range token {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}
