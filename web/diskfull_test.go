package web_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine/diskspace"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// fakeDisk is the data disk of a test server, as full as the test says.
type fakeDisk struct {
	mu sync.Mutex
	sp diskspace.Space
}

func (d *fakeDisk) statfs(string) (diskspace.Space, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sp, nil
}

func (d *fakeDisk) setFree(n uint64) {
	d.mu.Lock()
	d.sp.Free = n
	d.mu.Unlock()
}

// startOnDisk starts a server whose data disk is disk, with the default rule (64 MiB or 1%)
// and metrics on.
func startOnDisk(t *testing.T, disk *fakeDisk, log *webtest.LogBuffer) *webtest.Server {
	return webtest.StartConfig(t, func(c *web.Config) {
		c.Disk = diskspace.Options{Statfs: disk.statfs}
		if log != nil {
			c.Log = slog.New(slog.NewTextHandler(log, nil))
		}
		c.Metrics = true
	})
}

func healthz(t *testing.T, s *webtest.Server) (int, string) {
	t.Helper()
	res, err := http.Get(s.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func scrape(t *testing.T, s *webtest.Server) string {
	t.Helper()
	rec := httptest.NewRecorder()
	s.App().Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// TestDiskFullRefusesWritesKeepsReadsAndResumes: below 64 MiB free (on a 1 GiB disk, where 1%
// is less), every call that writes is refused with resource_exhausted, uploads with 507;
// reads, GetMe, GetState and streams, open ones and new ones, keep working; /healthz answers
// 503 with the reason; the metrics report the free space; once space is freed, writes go
// through again with no restart, and the open stream gets them.
func TestDiskFullRefusesWritesKeepsReadsAndResumes(t *testing.T) {
	t.Parallel()
	disk := &fakeDisk{sp: diskspace.Space{Free: 500 << 20, Total: 1 << 30}}
	logs := &webtest.LogBuffer{}
	s := startOnDisk(t, disk, logs)
	owner := s.Join("owner")
	bob := s.Join("bob")
	ch := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	before := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "before"})
	st := bob.Subscribe(t, s.Engine.Seq())
	if code, body := healthz(t, s); code != 200 || body != "ok" {
		t.Fatalf("healthz with room: %d %q", code, body)
	}

	disk.setFree(64<<20 - 1)
	const full = "the server's disk is full"
	wantFull := func(what string, err error) {
		t.Helper()
		if connect.CodeOf(err) != connect.CodeResourceExhausted || !strings.HasSuffix(err.Error(), full) {
			t.Errorf("%s on a full disk: %v, want resource_exhausted %q", what, err, full)
		}
	}
	_, err := owner.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "refused"}))
	wantFull("SendMessage", err)
	_, err = owner.Chat.CreateChannel(ctx, req(&svcv1.CreateChannelRequest{Name: "more", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	wantFull("CreateChannel", err)
	bio := "new"
	_, err = bob.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio}))
	wantFull("UpdateProfile", err)
	_, err = bob.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: ch.GetId(), Seq: before.GetCreatedSeq()}))
	wantFull("MarkRead", err)
	_, err = s.Client(s.Token("carol")).Server.Join(ctx, req(&svcv1.JoinRequest{}))
	wantFull("Join", err)
	up := postUpload(t, s, bob.Token, part{form: "file", file: "a.txt", body: strings.NewReader("hello")})
	wantRefused(t, "an upload", up, http.StatusInsufficientStorage, full)
	if keys := bucketKeys(t, s); len(keys) != 0 {
		t.Errorf("the refused upload left %q in the bucket", keys)
	}

	// Reads, the caller's own member and the state.
	list, err := bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId()}))
	if err != nil || len(list.Msg.GetMessages()) != 1 || list.Msg.GetMessages()[0].GetText() != "before" {
		t.Fatalf("ListMessages on a full disk: %v %v", list, err)
	}
	if _, err := bob.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
		t.Fatalf("GetMe on a full disk: %v", err)
	}
	state, err := bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatalf("GetState on a full disk: %v", err)
	}
	// A new stream opens and gets its heartbeat.
	fresh := bob.Subscribe(t, state.Msg.GetSeq())
	fresh.Ephemeral = true
	if ev := fresh.Next(); !ev.GetHeartbeat() {
		t.Fatalf("a stream opened on a full disk began with %v, want a heartbeat", ev)
	}

	code, body := healthz(t, s)
	if want := "unavailable: the server's disk is full: 64.0 MiB free, the server keeps at least 64.0 MiB\n"; code != 503 || body != want {
		t.Errorf("healthz on a full disk: %d %q, want 503 %q", code, body, want)
	}
	m := scrape(t, s)
	for _, want := range []string{"hearth_disk_free_bytes 6.7108863e+07", "hearth_disk_full_threshold_bytes 6.7108864e+07"} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	if n := strings.Count(logs.String(), "the data disk is full: refusing writes"); n != 1 {
		t.Errorf("%d log lines for the refusals within a minute, want 1:\n%s", n, logs.String())
	}

	// Space is freed: writes resume, the stream opened before gets them.
	disk.setFree(65 << 20)
	after := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "after"})
	if ev := st.Until(func(ev *svcv1.Event) bool { return ev.GetMessageCreated() != nil }); ev[len(ev)-1].GetMessageCreated().GetId() != after.GetId() {
		t.Fatalf("the stream got %v, want the message sent after the space came back", ev)
	}
	if up := postUpload(t, s, bob.Token, part{form: "file", file: "a.txt", body: bytes.NewReader([]byte("hello"))}); up.status != 200 {
		t.Errorf("an upload after the space came back: %d %s", up.status, up.err)
	}
	if code, body := healthz(t, s); code != 200 || body != "ok" {
		t.Fatalf("healthz after the space came back: %d %q", code, body)
	}
	if !strings.Contains(logs.String(), "the data disk has room again") {
		t.Errorf("no log line when writes resumed:\n%s", logs.String())
	}
}

// TestDiskFullOnePercentOfALargeDisk: on a 100 GiB disk the margin is 1 GiB, not 64 MiB.
func TestDiskFullOnePercentOfALargeDisk(t *testing.T) {
	t.Parallel()
	disk := &fakeDisk{sp: diskspace.Space{Free: 2 << 30, Total: 100 << 30}}
	s := startOnDisk(t, disk, nil)
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	disk.setFree(1000 << 20)
	_, err := owner.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "x"}))
	if connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("1000 MiB free of 100 GiB: %v, want resource_exhausted", err)
	}
	disk.setFree(1025 << 20)
	if _, err := owner.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "x"})); err != nil {
		t.Fatalf("1025 MiB free of 100 GiB: %v", err)
	}
}

// TestDiskFullLogsOneLineAMinute: while the disk stays full, refused writes are logged once a
// minute with how many there were, and the background jobs (which all write) wait without a
// line of their own.
func TestDiskFullLogsOneLineAMinute(t *testing.T) {
	t.Parallel()
	clk := webtest.NewClock()
	disk := &fakeDisk{sp: diskspace.Space{Free: 500 << 20, Total: 1 << 30}}
	logs := &webtest.LogBuffer{}
	s := webtest.StartConfig(t, func(c *web.Config) {
		c.Disk = diskspace.Options{Statfs: disk.statfs, Now: clk.Now}
		c.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}, webtest.WithClock(clk))
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	disk.setFree(1 << 20)
	for minute := range 3 {
		for range 5 {
			_, err := owner.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "x"}))
			if connect.CodeOf(err) != connect.CodeResourceExhausted {
				t.Fatalf("minute %d: %v", minute, err)
			}
		}
		clk.Advance(time.Minute)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines in three minutes of a full disk, want 3:\n%s", len(lines), logs.String())
	}
	for i, l := range lines {
		want := "refused=5"
		if i == 0 {
			want = "refused=1" // the first refusal is logged at once
		}
		if !strings.Contains(l, "the data disk is full: refusing writes") || (i > 0 && !strings.Contains(l, want)) {
			t.Errorf("line %d: %s", i, l)
		}
	}
}

// TestDiskFullKeepsSessionsSignedIn: on a full disk a person with an account still signs in
// and refreshes their tokens (a few hundred bytes each, within the margin), and the new
// access token works for reads; their writes are refused like anyone's.
func TestDiskFullKeepsSessionsSignedIn(t *testing.T) {
	t.Parallel()
	disk := &fakeDisk{sp: diskspace.Space{Free: 500 << 20, Total: 1 << 30}}
	s := startOnDisk(t, disk, nil)
	s.Join("owner")
	tok := s.SignUp(t, "alice", "correct horse battery", nil)
	alice := s.Client(tok.AccessToken)
	if _, err := alice.Server.Join(ctx, req(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	disk.setFree(1 << 20)
	refreshed, status := s.Refresh(t, tok.RefreshToken)
	if status != 200 || refreshed.AccessToken == "" || refreshed.RefreshToken == tok.RefreshToken {
		t.Fatalf("refresh on a full disk: %d %+v", status, refreshed)
	}
	again := s.SignIn(t, "alice", "correct horse battery")
	for _, access := range []string{refreshed.AccessToken, again.AccessToken} {
		c := s.Client(access)
		if _, err := c.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
			t.Fatalf("GetMe with a token got on a full disk: %v", err)
		}
		bio := "x"
		if _, err := c.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &bio})); connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("a write on a full disk: %v", err)
		}
	}
}
