package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/engine/backup"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// adminClient speaks HTTP over the server's admin socket.
func adminClient(dir string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", filepath.Join(dir, web.AdminSocketName))
	}}}
}

// TestAdminSocketBacksUpTheRunningServer: over <data>/admin.sock (mode 0600) the server tells
// its status, writes a backup into its bucket under backups/, and streams one that restores to
// the seq it had.
func TestAdminSocketBacksUpTheRunningServer(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "before the backup"})
	if fi, err := os.Stat(filepath.Join(s.Dir, web.AdminSocketName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("admin.sock: %v %v, want mode 0600", fi, err)
	}
	hc := adminClient(s.Dir)

	resp, err := hc.Get("http://hearth" + web.AdminStatusPath)
	if err != nil {
		t.Fatal(err)
	}
	var st web.AdminStatus
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if !st.Healthy || st.Seq != s.Engine.Seq() || st.Version != "dev" {
		t.Fatalf("status = %+v", st)
	}

	resp, err = hc.Post("http://hearth"+web.AdminBackupPath, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var res web.BackupResult
	json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	wantPrefix := "file://" + filepath.ToSlash(filepath.Join(s.Dir, "files", "backups", "hearth-backup-"))
	if resp.StatusCode != 200 || !strings.HasPrefix(res.Location, wantPrefix) || !res.HasFiles || res.Bytes == 0 || res.Seq != s.Engine.Seq() {
		t.Fatalf("POST /backup: %d %+v", resp.StatusCode, res)
	}
	names, err := backup.InBucket{Bucket: s.Bucket()}.List(context.Background())
	if err != nil || len(names) != 1 || !strings.HasSuffix(res.Location, names[0]) {
		t.Fatalf("backups in the bucket: %v %v", names, err)
	}

	seq := s.Engine.Seq()
	resp, err = hc.Get("http://hearth" + web.AdminBackupPath)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Trailer.Get(web.BackupResultTrailer) != "ok" {
		t.Fatalf("GET /backup: %v, trailer %q", err, resp.Trailer.Get(web.BackupResultTrailer))
	}
	restored, err := backup.Restore(context.Background(), bytes.NewReader(body), t.TempDir(), webtest.Logger())
	if err != nil || restored.Seq != seq {
		t.Fatalf("restore of the streamed backup: seq %d, %v; want %d", restored.Seq, err, seq)
	}
}

// TestScheduledBackupsRunOnTheEngineClock: -backup-every and -backup-keep, wired by web.Open:
// every interval one backup into -backup-to, the newest kept.
func TestScheduledBackupsRunOnTheEngineClock(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	s.Join("alice")
	folder := filepath.Join(t.TempDir(), "backups")
	s.SetBackups(web.BackupConfig{To: folder, Every: time.Hour, Keep: 2})
	start := clock.Now()
	clock.Advance(3*time.Hour + time.Minute)
	names, err := backup.Folder(folder).List(context.Background())
	want := []string{backup.Name(start.Add(2 * time.Hour)), backup.Name(start.Add(3 * time.Hour))}
	if err != nil || strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("backups after three hours: %v %v, want %v", names, err, want)
	}
}
