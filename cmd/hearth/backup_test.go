package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// The backup drill, as an operator runs it: a community under load, backed up while its
// members send, restored into a new directory on another "machine", started, and checked.

const drillBase = "http://chat.test"

// person is one member's clients, logged in with a token from `hearth token`.
type person struct {
	name, token string
	id          string
	server      svcv1connect.ServerServiceClient
	chat        svcv1connect.ChatServiceClient
}

func login(t *testing.T, bin, data, name string) *person {
	t.Helper()
	tok, err := exec.Command(bin, "token", "-data", data, "-base-url", drillBase, "-sub", name, "-name", name).Output()
	if err != nil {
		t.Fatalf("hearth token: %v", err)
	}
	return &person{name: name, token: strings.TrimSpace(string(tok))}
}

// at points the person's clients at a server.
func (p *person) at(url string) *person {
	opts := connect.WithInterceptors(auth.WithBearer(p.token))
	p.server = svcv1connect.NewServerServiceClient(http.DefaultClient, url, opts)
	p.chat = svcv1connect.NewChatServiceClient(http.DefaultClient, url, opts)
	return p
}

func (p *person) join(t *testing.T) {
	t.Helper()
	res, err := p.server.Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{}))
	if err != nil {
		t.Fatalf("%s joins: %v", p.name, err)
	}
	p.id = res.Msg.GetMember().GetId()
}

// send sends one message, waiting out the rate limit (people may send 5 a second).
func (p *person) send(req *svcv1.SendMessageRequest) (*svcv1.Message, error) {
	for attempt := 0; ; attempt++ {
		res, err := p.chat.SendMessage(context.Background(), connect.NewRequest(req))
		if connect.CodeOf(err) == connect.CodeResourceExhausted && attempt < 100 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			return nil, err
		}
		return res.Msg.GetMessage(), nil
	}
}

// state is what a member sees of a community: members, channels and every message of every
// channel they see, by id.
type state struct {
	seq      int64
	members  map[string]*svcv1.Member
	channels map[string]*svcv1.Channel
	messages map[string]*svcv1.Message
	// lastSeqs are the channels' last_message_seq, and maxSeqs the highest created_seq of
	// their messages, in the same order.
	lastSeqs, maxSeqs []int64
}

func stateOf(t *testing.T, p *person) *state {
	t.Helper()
	ctx := context.Background()
	gs, err := p.chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatalf("GetState as %s: %v", p.name, err)
	}
	s := &state{seq: gs.Msg.GetSeq(), members: map[string]*svcv1.Member{}, channels: map[string]*svcv1.Channel{}, messages: map[string]*svcv1.Message{}}
	for _, m := range gs.Msg.GetMembers() {
		// Presence comes and goes with connections; it is no state of the backup.
		m = proto.Clone(m).(*svcv1.Member)
		m.Presence = 0
		s.members[m.GetId()] = m
	}
	for _, c := range gs.Msg.GetChannels() {
		// Checked against the channel's messages instead: sends after a backup move it.
		c = proto.Clone(c).(*svcv1.Channel)
		lastSeq := c.GetLastMessageSeq()
		c.LastMessageSeq = 0
		s.channels[c.GetId()] = c
		s.lastSeqs = append(s.lastSeqs, lastSeq)
		before := ""
		var maxSeq int64
		for page := 0; page < 1000; page++ {
			res, err := p.chat.ListMessages(ctx, connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: c.GetId(), BeforeId: before, Limit: 200}))
			if err != nil {
				t.Fatalf("ListMessages: %v", err)
			}
			for _, m := range res.Msg.GetMessages() {
				m = proto.Clone(m).(*svcv1.Message)
				// URLs are signed when listed; the file ids and names are what is kept.
				for _, a := range m.GetAttachments() {
					a.Url = ""
				}
				s.messages[m.GetId()] = m
				maxSeq = max(maxSeq, m.GetCreatedSeq())
			}
			if !res.Msg.GetHasMore() || len(res.Msg.GetMessages()) == 0 {
				break
			}
			before = res.Msg.GetMessages()[0].GetId()
		}
		s.maxSeqs = append(s.maxSeqs, maxSeq)
	}
	return s
}

// upload stores a file and returns its id and signed URL.
func upload(t *testing.T, url, token, name string, content []byte) (id, fileURL string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", name)
	w.Write(content)
	mw.Close()
	r, _ := http.NewRequest(http.MethodPost, url+"/upload", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var att struct{ ID, URL string }
	if err := json.NewDecoder(resp.Body).Decode(&att); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST /upload: %d %v", resp.StatusCode, err)
	}
	return att.ID, att.URL
}

func fetch(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// hearthCmd runs a command of the binary and returns its output; it fails the test unless
// the exit code is want.
func hearthCmd(t *testing.T, bin string, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	return hearthCmdIn(t, bin, nil, want, args...)
}

// hearthCmdIn is hearthCmd with stdin (nil: none).
func hearthCmdIn(t *testing.T, bin string, stdin io.Reader, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != want {
		t.Fatalf("hearth %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// TestBackupDrill: members send while `hearth backup` runs (to a file, and to the bucket's
// backups/); `hearth restore` fills a new directory, refusing one that holds a database; the
// restored server starts with every member, channel, message, seq and file of the backup:
// tokens and file URLs issued before still work, the log replays from seq 1 without a gap,
// and new events continue the seqs.
func TestBackupDrill(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	dataA := t.TempDir()
	_, urlA := startBinary(t, bin, "-data", dataA, "-addr", "127.0.0.1:0", "-base-url", drillBase)
	ctx := context.Background()

	var people []*person
	for _, name := range []string{"alice", "bob", "carol", "dave", "erin", "frank"} {
		p := login(t, bin, dataA, name).at(urlA)
		p.join(t)
		people = append(people, p)
	}
	alice, bob := people[0], people[1]
	done := true
	if _, err := alice.server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
		t.Fatal(err)
	}
	general, err := alice.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	staff, err := alice.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "staff", Kind: svcv1.ChannelKind_CHANNEL_KIND_PRIVATE}))
	if err != nil {
		t.Fatal(err)
	}
	dm, err := alice.chat.OpenDM(ctx, connect.NewRequest(&svcv1.OpenDMRequest{MemberIds: []string{bob.id}}))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"notes.txt": []byte("the agenda, in plain text"),
		// Large enough that the backup takes a while, during which everyone sends.
		"data.bin":   noise(12 << 20),
		"report.csv": []byte("a,b\n1,2\n"),
	}
	var ids []string
	fileURLs := map[string][]byte{}
	for name, content := range files {
		id, u := upload(t, urlA, alice.token, name, content)
		ids = append(ids, id)
		fileURLs[u] = content
	}
	if _, err := alice.send(&svcv1.SendMessageRequest{ChannelId: staff.Msg.GetChannel().GetId(), Text: "the files", AttachmentIds: ids}); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.send(&svcv1.SendMessageRequest{ChannelId: dm.Msg.GetChannel().GetId(), Text: "just us"}); err != nil {
		t.Fatal(err)
	}

	// Everyone sends while the backups are taken.
	const perPerson = 40
	var mu sync.Mutex
	var acked []*svcv1.Message
	ackedAt := make(chan int, len(people)*perPerson)
	var wg sync.WaitGroup
	for _, p := range people {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perPerson {
				m, err := p.send(&svcv1.SendMessageRequest{ChannelId: general.Msg.GetChannel().GetId(), Text: fmt.Sprintf("%s %d", p.name, i), ClientId: fmt.Sprintf("%s-%d", p.name, i)})
				if err != nil {
					t.Errorf("%s sends: %v", p.name, err)
					return
				}
				mu.Lock()
				acked = append(acked, m)
				n := len(acked)
				mu.Unlock()
				ackedAt <- n
			}
		}()
	}
	for n := range ackedAt {
		if n >= len(people)*perPerson/3 {
			break
		}
	}
	mu.Lock()
	beforeBackup := append([]*svcv1.Message(nil), acked...)
	mu.Unlock()
	file := filepath.Join(t.TempDir(), "community.tar.gz")
	out, _ := hearthCmd(t, bin, 0, "backup", "-data", dataA, "-o", file)
	if !strings.Contains(out, "Backup written to "+file) {
		t.Fatalf("hearth backup -o: %q", out)
	}
	out, _ = hearthCmd(t, bin, 0, "backup", "-data", dataA)
	if !strings.Contains(out, "Backup written to file://"+filepath.ToSlash(filepath.Join(dataA, "files", "backups", "hearth-backup-"))) {
		t.Fatalf("hearth backup: %q", out)
	}
	mu.Lock()
	duringBackup := len(acked) - len(beforeBackup)
	mu.Unlock()
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("%d messages acknowledged before the backup, %d while the two backups ran, %d in all", len(beforeBackup), duringBackup, len(acked))
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the backup file: %v, %v; want mode 0600", fi, err)
	}

	// Restore: never over a database, and into a new directory in one command.
	_, stderr := hearthCmd(t, bin, 1, "restore", "-data", dataA, file)
	if !strings.Contains(stderr, "holds a database") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("restore over the running server's data: %q", stderr)
	}
	dataC := filepath.Join(t.TempDir(), "restored")
	out, _ = hearthCmd(t, bin, 0, "restore", "-data", dataC, file)
	if !strings.Contains(out, "Restored into "+dataC) {
		t.Fatalf("hearth restore: %q", out)
	}
	_, urlC := startBinary(t, bin, "-data", dataC, "-addr", "127.0.0.1:0", "-base-url", drillBase)

	// Old tokens work on the restored server; everyone is who they were.
	for _, p := range people {
		me, err := p.at(urlC).server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{}))
		if err != nil || me.Msg.GetMember().GetId() != p.id {
			t.Fatalf("%s's old token on the restored server: %v %v", p.name, me, err)
		}
	}
	restored := stateOf(t, alice.at(urlC))
	original := stateOf(t, alice.at(urlA))
	// The restored log goes on 2^40 past the backup's last seq (docs/decisions.md).
	backupSeq := restored.seq - 1<<40
	if backupSeq < beforeBackup[len(beforeBackup)-1].GetSeq() || backupSeq > original.seq {
		t.Fatalf("restored seq %d - 2^40, want between %d and %d", restored.seq, beforeBackup[len(beforeBackup)-1].GetSeq(), original.seq)
	}
	if len(restored.members) != len(people) || len(restored.channels) != 3 {
		t.Fatalf("restored %d members and %d channels, want %d and 3", len(restored.members), len(restored.channels), len(people))
	}
	for id, m := range original.members {
		if !proto.Equal(m, restored.members[id]) {
			t.Fatalf("member %s: restored %v, was %v", id, restored.members[id], m)
		}
	}
	for id, c := range original.channels {
		if !proto.Equal(c, restored.channels[id]) {
			t.Fatalf("channel %s: restored %v, was %v", id, restored.channels[id], c)
		}
	}
	for i := range restored.lastSeqs {
		if restored.lastSeqs[i] != restored.maxSeqs[i] {
			t.Fatalf("a restored channel's last_message_seq is %d, its newest message's %d", restored.lastSeqs[i], restored.maxSeqs[i])
		}
	}
	// Exactly the messages up to the backup's seq, as they were.
	for id, m := range original.messages {
		r, ok := restored.messages[id]
		if m.GetCreatedSeq() <= backupSeq && (!ok || !proto.Equal(m, r)) {
			t.Fatalf("message %s (seq %d): restored %v, was %v", id, m.GetCreatedSeq(), r, m)
		}
		if m.GetCreatedSeq() > backupSeq && ok {
			t.Fatalf("message %s of seq %d is in a backup of seq %d", id, m.GetCreatedSeq(), backupSeq)
		}
	}
	for _, m := range beforeBackup {
		if _, ok := restored.messages[m.GetId()]; !ok {
			t.Fatalf("message %q, acknowledged before the backup, is not in it", m.GetText())
		}
	}
	if len(restored.messages) > len(original.messages) {
		t.Fatalf("the restored server has %d messages, the original %d", len(restored.messages), len(original.messages))
	}
	// File URLs issued by the original server work on the restored one.
	for u, content := range fileURLs {
		if code, got := fetch(t, urlC+u); code != 200 || !bytes.Equal(got, content) {
			t.Fatalf("GET %s on the restored server: %d, %d bytes (want %d)", u, code, len(got), len(content))
		}
	}
	// A client resumes with Subscribe: the whole log replays, seq after seq (across the gap
	// from the backup's last seq to the restored one), then live events continue.
	st, err := bob.at(urlC).chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: 0}))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var last int64
	for last < restored.seq && st.Receive() {
		ev := st.Msg()
		if ev.GetResync() {
			t.Fatal("replay from seq 0 on the restored server got resync")
		}
		if ev.GetSeq() == 0 {
			continue
		}
		if ev.GetSeq() <= last {
			t.Fatalf("replay went from seq %d to %d", last, ev.GetSeq())
		}
		last = ev.GetSeq()
	}
	if last != restored.seq {
		t.Fatalf("replay ended at seq %d, want %d: %v", last, restored.seq, st.Err())
	}
	next, err := bob.send(&svcv1.SendMessageRequest{ChannelId: general.Msg.GetChannel().GetId(), Text: "back again"})
	if err != nil || next.GetCreatedSeq() != restored.seq+1 {
		t.Fatalf("the first send after the restore: %v %v, want seq %d", next, err, restored.seq+1)
	}

	// The backup the server wrote into its bucket restores too.
	backups, err := filepath.Glob(filepath.Join(dataA, "files", "backups", "hearth-backup-*.tar.gz"))
	if err != nil || len(backups) != 1 {
		t.Fatalf("backups in the bucket: %v %v", backups, err)
	}
	dataD := filepath.Join(t.TempDir(), "from-the-bucket")
	hearthCmd(t, bin, 0, "restore", backups[0], "-data", dataD)
	for _, name := range []string{"issuer-key", "file-key", "db"} {
		if _, err := os.Stat(filepath.Join(dataD, name)); err != nil {
			t.Fatalf("restored from the bucket: %v", err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dataD, "files", "backups")); len(entries) != 0 {
		t.Fatalf("a backup holds older backups: %v", entries)
	}
}

// noise is n bytes that do not compress.
func noise(n int) []byte {
	b := make([]byte, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

// TestBackupThroughAPipeAndRestoreFromStdinOrURL: README's container commands, `hearth backup
// -o -` and `hearth restore -data DIR -` (and a backup at an http URL): the bytes on stdout are
// a backup that restores, and a backup cut short restores nothing, says so in one line and
// leaves the directory missing as it was.
func TestBackupThroughAPipeAndRestoreFromStdinOrURL(t *testing.T) {
	bin := hearthBinary(t)
	data := t.TempDir()
	_, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", drillBase)
	login(t, bin, data, "alice").at(url).join(t)
	archive, _ := hearthCmd(t, bin, 0, "backup", "-data", data, "-o", "-")

	restore := func(want int, stdin []byte, args ...string) (string, string) {
		t.Helper()
		return hearthCmdIn(t, bin, bytes.NewReader(stdin), want, append([]string{"restore"}, args...)...)
	}
	fromStdin := filepath.Join(t.TempDir(), "from-stdin")
	if out, _ := restore(0, []byte(archive), "-data", fromStdin, "-"); !strings.Contains(out, "Restored into "+fromStdin) {
		t.Fatalf("restore from stdin: %q", out)
	}
	for _, name := range []string{"db", "issuer-key", "file-key"} {
		if _, err := os.Stat(filepath.Join(fromStdin, name)); err != nil {
			t.Fatalf("restored from stdin: %v", err)
		}
	}

	cut := filepath.Join(t.TempDir(), "from-half")
	_, stderr := restore(1, []byte(archive[:len(archive)/2]), "-data", cut, "-")
	if !strings.Contains(stderr, "the backup is damaged or cut short") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("restore of half a backup: %q", stderr)
	}
	if _, err := os.Stat(cut); !os.IsNotExist(err) {
		t.Fatalf("restore of half a backup left %s: %v", cut, err)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/community.tar.gz" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, archive)
	}))
	defer srv.Close()
	fromURL := filepath.Join(t.TempDir(), "from-url")
	if out, _ := restore(0, nil, "-data", fromURL, srv.URL+"/community.tar.gz"); !strings.Contains(out, "Restored into "+fromURL) {
		t.Fatalf("restore from a URL: %q", out)
	}
	if _, stderr := restore(1, nil, "-data", filepath.Join(t.TempDir(), "none"), srv.URL+"/nothing.tar.gz"); !strings.Contains(stderr, "404 Not Found") {
		t.Fatalf("restore from a URL that is not there: %q", stderr)
	}
}
