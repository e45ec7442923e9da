package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine/diskspace"
	svcv1 "hearth/proto/svc/v1"
)

// writeDiscordExport writes a DiscordChatExporter JSON export of one channel with n messages by
// 50 people, a message a second from 2020 on, every tenth one edited and every fifth one
// reacted to, streamed to the file (a million messages are some 700 MB). It returns the path.
func writeDiscordExport(t testing.TB, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, `{"guild":{"id":"1","name":"Big","iconUrl":""},"channel":{"id":"10","type":"GuildTextChat","categoryId":"2","category":"Text","name":"big","topic":"a big one"},"dateRange":{"after":null,"before":null},"exportedAt":"2024-01-01T00:00:00+00:00","messages":[`)
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		at := start.Add(time.Duration(i) * time.Second)
		u := i % 50
		edited := "null"
		if i%10 == 0 {
			edited = `"` + at.Add(time.Minute).Format("2006-01-02T15:04:05.000+00:00") + `"`
		}
		reactions := "[]"
		if i%5 == 0 {
			reactions = fmt.Sprintf(`[{"emoji":{"id":"","name":"👍","code":"thumbsup","isAnimated":false,"imageUrl":""},"count":1,"users":[{"id":"%d","name":"user%d","discriminator":"0000","nickname":"User %d","isBot":false,"avatarUrl":""}]}]`, 1000+(u+1)%50, (u+1)%50, (u+1)%50)
		}
		fmt.Fprintf(w, `{"id":"%d","type":"Default","timestamp":"%s","timestampEdited":%s,"callEndedTimestamp":null,"isPinned":false,"content":"message %d: the quick brown fox jumps over the lazy dog %d times","author":{"id":"%d","name":"user%d","discriminator":"0000","nickname":"User %d","color":null,"isBot":false,"roles":[],"avatarUrl":"https://cdn.discordapp.com/embed/avatars/0.png"},"attachments":[],"components":[],"embeds":[],"stickers":[],"reactions":%s,"mentions":[],"inlineEmojis":[]}`,
			100000+i, at.Format("2006-01-02T15:04:05.000+00:00"), edited, i, i%97, 1000+u, u, u, reactions)
	}
	fmt.Fprintf(w, `],"messageCount":%d}`, n)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// channelHistory pages through a channel and checks it: every message once, oldest first.
func channelHistory(t *testing.T, m *member, chID string) []*svcv1.Message {
	t.Helper()
	var out []*svcv1.Message
	before := ""
	for {
		page, err := m.chat.ListMessages(context.Background(), connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: chID, BeforeId: before, Limit: 200}))
		if err != nil {
			t.Fatal(err)
		}
		out = append(page.Msg.GetMessages(), out...)
		if !page.Msg.GetHasMore() || len(page.Msg.GetMessages()) == 0 {
			return out
		}
		before = page.Msg.GetMessages()[0].GetId()
	}
}

// TestImportCutByKill9FinishesWhenRunAgain: the server is killed with SIGKILL in the middle of
// an import; started again, the same import run again finishes it, and the channel holds every
// message of the export once, in time order, with its original time.
func TestImportCutByKill9FinishesWhenRunAgain(t *testing.T) {
	bin := hearthBinary(t)
	data := t.TempDir()
	args := []string{"-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase}
	srv, url := startBinary(t, bin, args...)
	join(t, data, url, "owner", "")
	const n = 10_000
	export := writeDiscordExport(t, t.TempDir(), n)

	imp := exec.Command(bin, "import", "discord", "-data", data, export)
	out := &lockedBuffer{}
	imp.Stdout, imp.Stderr = out, out
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill the server once some of it is in: the progress shows messages done.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), ",000 messages") {
		if time.Now().After(deadline) {
			t.Fatalf("no progress within a minute:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	srv.wait(20 * time.Second)
	if err := imp.Wait(); err == nil {
		t.Fatalf("the import went on without its server:\n%s", out.String())
	}
	t.Logf("cut short:\n%s", lastLines(out.String(), 3))

	_, url = startBinary(t, bin, args...)
	owner := loginAs(t, data, url, "owner", "")
	st, err := owner.chat.GetState(context.Background(), connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var chID string
	for _, ch := range st.Msg.GetChannels() {
		if ch.GetName() == "big" {
			chID = ch.GetId()
		}
	}
	if chID == "" {
		t.Fatalf("no channel big after the kill: %v", st.Msg.GetChannels())
	}
	partial := len(channelHistory(t, owner, chID))
	if partial == 0 || partial == n {
		t.Fatalf("%d of %d messages in before the rerun: the kill did not land mid-import", partial, n)
	}
	// Closed to new messages until the import finishes.
	if _, err := owner.chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: chID, Text: "hi"})); connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("a message in a channel being imported: %v", err)
	}

	stdout, _ := hearthCmd(t, bin, 0, "import", "discord", "-data", data, export)
	t.Logf("run again:\n%s", stdout)
	if !strings.Contains(stdout, "already here") {
		t.Fatalf("summary: %s", stdout)
	}
	msgs := channelHistory(t, owner, chID)
	if len(msgs) != n {
		t.Fatalf("%d messages after the rerun, want %d", len(msgs), n)
	}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for i, m := range msgs {
		want := fmt.Sprintf("message %d: ", i)
		if !strings.HasPrefix(m.GetText(), want) || m.GetCreatedAtMs() != start+int64(i)*1000 {
			t.Fatalf("message %d is %q at %d", i, m.GetText(), m.GetCreatedAtMs())
		}
		if i > 0 && m.GetCreatedSeq() <= msgs[i-1].GetCreatedSeq() {
			t.Fatalf("seqs out of order at %d", i)
		}
	}
	st, err = owner.chat.GetState(context.Background(), connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for i, ch := range st.Msg.GetChannels() {
		if ch.GetId() == chID && (st.Msg.GetReadStates()[i].GetUnreadCount() != 0 || ch.GetLastMessageSeq() != msgs[n-1].GetCreatedSeq()) {
			t.Fatalf("channel %v, read state %v", ch, st.Msg.GetReadStates()[i])
		}
	}
	if _, err := owner.chat.SendMessage(context.Background(), connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: chID, Text: "we are here now"})); err != nil {
		t.Fatal(err)
	}
	// A stream from before the import replays across it (its messages took seqs without events).
	stream, err := owner.chat.Subscribe(context.Background(), connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	for stream.Receive() {
		if m := stream.Msg().GetMessageCreated(); m.GetText() == "we are here now" {
			return
		}
	}
	t.Fatalf("the replay ended before the new message: %v", stream.Err())
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestImportSpeed imports a generated export of HEARTH_IMPORT_MESSAGES messages (docs/
// performance.md): skipped unless the variable is set. It samples the server's memory as the
// import goes: its RSS split into anonymous (its own) and file-backed (Badger's mapped files)
// pages, and the Go heap in use from its metrics; and the load average, since the machine is
// shared. With HEARTH_IMPORT_PROFILES=DIR it runs a hearthpprof build and writes a heap
// profile of the server to DIR every 30 seconds.
func TestImportSpeed(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HEARTH_IMPORT_MESSAGES"))
	if n <= 0 {
		t.Skip("set HEARTH_IMPORT_MESSAGES to the number of messages to import")
	}
	bin := hearthBinary(t)
	profiles := os.Getenv("HEARTH_IMPORT_PROFILES")
	if profiles != "" {
		// A build that serves /debug/pprof on its metrics address (pprof.go).
		bin = filepath.Join(t.TempDir(), "hearth-pprof")
		if out, err := exec.Command("go", "build", "-tags", "hearthpprof", "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build -tags hearthpprof: %v\n%s", err, out)
		}
	}
	data := t.TempDir()
	srv, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase, "-metrics-addr", "127.0.0.1:0")
	join(t, data, url, "owner", "")
	m := metricsAt.FindStringSubmatch(srv.outBuf.String())
	if m == nil {
		t.Fatalf("no metrics address:\n%s", srv.outBuf.String())
	}
	metricsURL := strings.TrimSuffix(m[1], "/metrics")
	began := time.Now()
	export := writeDiscordExport(t, t.TempDir(), n)
	fi, _ := os.Stat(export)
	t.Logf("generated %d messages (%d MB) in %s", n, fi.Size()>>20, time.Since(began).Round(time.Second))
	imp := exec.Command(bin, "import", "discord", "-data", data, export)
	out := &lockedBuffer{}
	imp.Stdout, imp.Stderr = out, out
	began = time.Now()
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	var anon, file, rss, heap, tool int64
	loadMin, loadMax := loadAverage(), loadAverage()
	done := make(chan error, 1)
	go func() { done <- imp.Wait() }()
	pid := srv.cmd.Process.Pid
	nextProfile, nextHeap := time.Now(), time.Now()
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("import: %v\n%s", err, out.String())
			}
			running = false
		case <-time.After(500 * time.Millisecond):
			anon = max(anon, memKB(pid, "RssAnon:")<<10)
			file = max(file, memKB(pid, "RssFile:")<<10)
			rss = max(rss, memKB(pid, "VmRSS:")<<10)
			tool = max(tool, memKB(imp.Process.Pid, "RssAnon:")<<10)
			if time.Now().After(nextHeap) {
				nextHeap = time.Now().Add(2 * time.Second)
				heap = max(heap, int64(metricValue(t, metricsURL, "go_memstats_heap_inuse_bytes")))
				l := loadAverage()
				loadMin, loadMax = min(loadMin, l), max(loadMax, l)
			}
			if profiles != "" && time.Now().After(nextProfile) {
				nextProfile = time.Now().Add(30 * time.Second)
				saveProfile(t, metricsURL+"/debug/pprof/heap", filepath.Join(profiles, fmt.Sprintf("heap-%04d.pb.gz", int(time.Since(began).Seconds()))))
				t.Logf("%s: server heap in use %d MB, RSS anonymous %d MB, file-backed %d MB; %s", time.Since(began).Round(time.Second),
					int64(metricValue(t, metricsURL, "go_memstats_heap_inuse_bytes"))>>20, memKB(pid, "RssAnon:")>>10, memKB(pid, "RssFile:")>>10, lastLines(out.String(), 1))
			}
		}
	}
	took := time.Since(began)
	disk, err := diskspace.Used(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("imported %d messages in %s (%.0f a second), load average %.1f to %.1f\n"+
		"server at its peak: Go heap in use %d MB, RSS %d MB: anonymous %d MB, file-backed %d MB (Badger's mapped files)\n"+
		"import tool at its peak: RSS anonymous %d MB\ndata directory: %d MB on disk\n%s",
		n, took.Round(time.Second), float64(n)/took.Seconds(), loadMin, loadMax, heap>>20, rss>>20, anon>>20, file>>20, tool>>20, disk>>20, lastLines(out.String(), 4))
}

// metricValue reads one unlabelled metric from the server's /metrics (0 when it is not there).
func metricValue(t *testing.T, base, name string) float64 {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Logf("metrics: %v", err)
		return 0
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			v, _ := strconv.ParseFloat(rest, 64)
			return v
		}
	}
	return 0
}

// loadAverage is the machine's load average over the last minute.
func loadAverage() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	l, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return l
}

// memKB is a line of a process's /proc status (VmRSS:, RssAnon:, RssFile:) in KiB (0 when it
// cannot be read). Badger maps its files, so VmRSS counts the pages of the database read or
// written lately (RssFile, which the kernel drops when it needs the memory); RssAnon is the
// process's own memory.
func memKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// saveProfile writes what url answers (a pprof profile) to path.
func saveProfile(t *testing.T, url, path string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Logf("profile: %v", err)
		return
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Logf("profile: %v", err)
	}
}
