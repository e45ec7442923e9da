package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// The full disk for real (EXTENSIONS.md, Operations): the binary on a 40 MiB file system of
// its own, filled from outside until writes are refused, filled to its very end, emptied, and
// killed with SIGKILL. Badger writes through memory maps, so a write that finds the disk at its
// end is a SIGBUS: this test is what shows the guard keeps it away from there.

// smallFS mounts a tmpfs of size bytes for the test and returns its folder. Mounting needs
// root on Linux; where the machine does not allow it the test is skipped with the reason, or
// fails when HEARTH_REQUIRE_SMALLFS=1 (as in CI).
func smallFS(t *testing.T, size string) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("HEARTH_REQUIRE_SMALLFS") == "1" {
			t.Fatalf("HEARTH_REQUIRE_SMALLFS=1 but no small file system: %s", msg)
		}
		t.Skipf("no small file system to fill, skipping: %s (run as root on Linux, or set HEARTH_REQUIRE_SMALLFS=1 to make this a failure)", msg)
	}
	if runtime.GOOS != "linux" {
		unavailable("tmpfs mounts are Linux's")
	}
	if os.Geteuid() != 0 {
		unavailable("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		unavailable("mount -t tmpfs: %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
			exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

// freeBytes is what an unprivileged process may still write under dir.
func freeBytes(t *testing.T, dir string) uint64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return st.Bavail * uint64(st.Bsize)
}

// fill writes a file of zeros under dir until only keep bytes are free (0: until the disk
// refuses), and returns its path.
func fill(t *testing.T, dir string, keep uint64) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("ballast-%d", time.Now().UnixNano()))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 256<<10)
	for {
		free := freeBytes(t, dir)
		if free <= keep {
			return path
		}
		n := min(uint64(len(chunk)), free-keep)
		if _, err := f.Write(chunk[:n]); err != nil {
			if keep == 0 && errors.Is(err, syscall.ENOSPC) {
				return path
			}
			t.Fatalf("filling the disk: %v", err)
		}
	}
}

var metricsAt = regexp.MustCompile(`Metrics at (http://\S+/metrics)`)

// TestFullDiskIsARefusalNotACrash: with -disk-min-free 8MiB on a 40 MiB disk, members send
// until the disk is filled from outside; then every send and upload is refused with "the
// server's disk is full", reads and streams go on, /healthz answers 503 and the metrics say
// how much is free; filled to its very last block, the server still runs; emptied, it takes
// writes again without a restart; killed with SIGKILL and started again, it has every message
// it acknowledged.
func TestFullDiskIsARefusalNotACrash(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	fs := smallFS(t, "40m")
	data := filepath.Join(fs, "data")
	args := []string{"-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase, "-metrics-addr", "127.0.0.1:0", "-disk-min-free", "8MiB"}
	srv, url := startBinary(t, bin, args...)
	owner := join(t, data, url, "owner", "")
	ctx := context.Background()
	ch, err := owner.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	chID := ch.Msg.GetChannel().GetId()
	book := &ledger{msgs: map[string]acked{}}
	n := 0
	send := func() error {
		n++
		text := fmt.Sprintf("message %04d %s", n, strings.Repeat("x", 2000)) // past the value threshold: into the value log
		res, err := owner.chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: chID, Text: text}))
		for tries := 0; err != nil && strings.Contains(err.Error(), "rate limit") && tries < 50; tries++ {
			time.Sleep(100 * time.Millisecond) // people send 5 a second
			res, err = owner.chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: chID, Text: text}))
		}
		if err == nil {
			m := res.Msg.GetMessage()
			book.put(m.GetId(), acked{createdSeq: m.GetCreatedSeq(), text: text, author: m.GetAuthorId()})
		}
		return err
	}
	for range 30 {
		if err := send(); err != nil {
			t.Fatalf("send on a disk with room: %v", err)
		}
	}
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := owner.chat.Subscribe(streamCtx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: 0}))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()

	// Filled from outside to 6 MiB free: under the 8 MiB the server keeps.
	ballast := fill(t, fs, 6<<20)
	const full = "the server's disk is full"
	for i := range 20 {
		err := send()
		if connect.CodeOf(err) != connect.CodeResourceExhausted || !strings.Contains(err.Error(), full) {
			t.Fatalf("send %d on a full disk: %v, want resource_exhausted %q", i, err, full)
		}
	}
	if status, body := uploadStatus(t, url, owner.token); status != http.StatusInsufficientStorage || !strings.Contains(body, full) {
		t.Errorf("an upload on a full disk: %d %s", status, body)
	}
	list, err := owner.chat.ListMessages(ctx, connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: chID, Limit: 100}))
	if err != nil || len(list.Msg.GetMessages()) != 30 {
		t.Fatalf("ListMessages on a full disk: %d messages, %v", len(list.Msg.GetMessages()), err)
	}
	if status, body := get(t, url+"/healthz"); status != 503 || !strings.Contains(body, full) {
		t.Errorf("healthz on a full disk: %d %q", status, body)
	}
	m := metricsAt.FindStringSubmatch(srv.outBuf.String())
	if m == nil {
		t.Fatalf("no metrics address in:\n%s", srv.outBuf.String())
	}
	if _, body := get(t, m[1]); !regexp.MustCompile(`(?m)^hearth_disk_free_bytes [0-9.e+]+$`).MatchString(body) || !strings.Contains(body, "hearth_disk_full_threshold_bytes 8.388608e+06\n") {
		t.Errorf("the metrics do not report the disk:\n%s", grepLines(body, "hearth_disk"))
	}
	srv.waitStderr(t, "the data disk is full: refusing writes")

	// To the very last block: the server refuses and lives.
	last := fill(t, fs, 0)
	for range 20 {
		if err := send(); connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("send on a disk with no block left: %v", err)
		}
	}
	if status, _ := uploadStatus(t, url, owner.token); status != http.StatusInsufficientStorage {
		t.Errorf("an upload on a disk with no block left: %d", status)
	}
	if status, _ := get(t, url+"/healthz"); status != 503 {
		t.Errorf("healthz on a disk with no block left: %d", status)
	}
	select {
	case <-srv.exited:
		t.Fatalf("the server died on a full disk: %v\n%s", srv.err, srv.stderr())
	default:
	}
	if strings.Count(srv.stderr(), "the data disk is full: refusing writes") != 1 {
		t.Errorf("more than one line a minute about the full disk:\n%s", grepLines(srv.stderr(), "disk"))
	}

	// Space freed: writes resume, no restart; the stream opened before sees them.
	for _, p := range []string{last, ballast} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		if err := send(); err != nil {
			t.Fatalf("send %d after the space was freed: %v", i, err)
		}
	}
	if status, body := uploadStatus(t, url, owner.token); status != 200 {
		t.Errorf("an upload after the space was freed: %d %s", status, body)
	}
	if status, body := get(t, url+"/healthz"); status != 200 || body != "ok" {
		t.Errorf("healthz after the space was freed: %d %q", status, body)
	}
	created := 0
	for created < 40 {
		if !stream.Receive() {
			t.Fatalf("the stream ended after %d messages: %v", created, stream.Err())
		}
		if stream.Msg().GetMessageCreated() != nil {
			created++
		}
	}
	srv.waitStderr(t, "the data disk has room again")

	// Killed and started again: every acknowledged message is there.
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	srv.wait(20 * time.Second)
	_, url = startBinary(t, bin, args...)
	checkAgainstLog(t, loginAs(t, data, url, "owner", ""), chID, book)
	if len(book.msgs) != 40 {
		t.Fatalf("%d messages acknowledged, want 40", len(book.msgs))
	}
}

func uploadStatus(t *testing.T, url, token string) (int, string) {
	t.Helper()
	body := strings.NewReader("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n--b--\r\n")
	req, err := http.NewRequest(http.MethodPost, url+"/upload", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// grepLines keeps the lines of s that contain word.
func grepLines(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
