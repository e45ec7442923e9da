package web_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// TestRestoreOnAFreshMachineBringsBackEverything: a backup streamed from the running server
// over its admin socket, restored into an emptied data directory (a new machine at the same
// base URL), gives back what people made beside the messages the binary's backup drill
// checks: an account of the built-in issuer (its password signs in, its refresh token from
// before still refreshes), a custom emoji's image, an upload, and a plugin, running, with what
// it kept in its store.
func TestRestoreOnAFreshMachineBringsBackEverything(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)

	bob := s.SignUp(t, "bob", pw, nil)
	bobID := me(t, s, bob).GetId()

	mustAddEmoji(t, s, owner, filePart("party.png", noisePNG(t, 64, 64, 7)))
	emojiURL := emojiURLs(listEmojiOf(t, s, owner))["party"]
	emojiBefore := fetchAs(t, s, nil, emojiURL)
	if emojiURL == "" || emojiBefore.status != http.StatusOK {
		t.Fatalf("the emoji before the backup: %q %d", emojiURL, emojiBefore.status)
	}

	att := mustUpload(t, s, owner, "notes.txt", []byte("the agenda"))
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "the notes", AttachmentIds: []string{att.GetId()}})

	mustInstall(t, owner, "keeper", `
chat.on('message', m => {
  const [cmd, value] = m.text.split(' ');
  if (cmd === '!keep') { chat.store.set('kept', value); chat.sendMessage({channelId: m.channelId, text: 'kept'}); }
  if (cmd === '!recall') chat.sendMessage({channelId: m.channelId, text: 'recalled ' + chat.store.get('kept')});
});`)
	st := owner.Subscribe(t, s.Engine.Seq())
	if got := asker(t, nil, owner, st, general.GetId())("!keep lantern"); got != "kept" {
		t.Fatalf("the plugin answered %q", got)
	}
	st.Close()

	archive := backupOver(t, s.Dir)
	seq := s.Engine.Seq()

	if res := s.RestoreFresh(bytes.NewReader(archive)); res.Seq != seq || !res.Manifest.Files {
		t.Fatalf("restored seq %d, files %v; want seq %d with the files", res.Seq, res.Manifest.Files, seq)
	}

	// The account: the password signs in to the same member, and the refresh token from
	// before the backup still works.
	if got := me(t, s, s.SignIn(t, "bob", pw)).GetId(); got != bobID {
		t.Fatalf("bob signs in as %s after the restore, was %s", got, bobID)
	}
	if tok, status := s.Refresh(t, bob.RefreshToken); status != http.StatusOK || me(t, s, tok).GetId() != bobID {
		t.Fatalf("bob's refresh token after the restore: %d %+v", status, tok)
	}

	// The emoji: listed at the same URL, the same image.
	if u := emojiURLs(listEmojiOf(t, s, owner))["party"]; u != emojiURL {
		t.Fatalf("the emoji's URL after the restore is %q, was %q", u, emojiURL)
	}
	if f := fetchAs(t, s, nil, emojiURL); f.status != http.StatusOK || !bytes.Equal(f.body, emojiBefore.body) {
		t.Fatalf("GET %s after the restore: %d, %d bytes (want %d)", emojiURL, f.status, len(f.body), len(emojiBefore.body))
	}

	// The upload, by the URL signed before the backup.
	if f := fetch(t, s, http.MethodGet, att.GetUrl()); f.status != http.StatusOK || string(f.body) != "the agenda" {
		t.Fatalf("GET %s after the restore: %d %q", att.GetUrl(), f.status, f.body)
	}

	// The plugin runs again, with its store.
	if p := listed(t, owner, "keeper"); !p.GetEnabled() || !p.GetRunning() {
		t.Fatalf("the plugin after the restore: %v", p)
	}
	st = owner.Subscribe(t, s.Engine.Seq())
	defer st.Close()
	if got := asker(t, nil, owner, st, general.GetId())("!recall"); got != "recalled lantern" {
		t.Fatalf("the plugin recalls %q after the restore", got)
	}
}

// TestRestoredLogStartsPastAGap: the server a backup came from may go on past the backup, and
// its clients with it. The restored server's first event is 2^40 seqs past the backup's last,
// so that a client that saw a seq after the backup's gets resync and reloads, instead of
// subscribing after a seq that means other events here; a client that saw no more than the
// backup holds replays across the gap. From the new seq on, streams go on as usual, and a
// restart does not jump again.
func TestRestoredLogStartsPastAGap(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "before the backup"})
	archive := backupOver(t, s.Dir)
	backedUp := s.Engine.Seq()
	for range 3 {
		mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "after the backup"})
	}
	sawLast := s.Engine.Seq() // what a client of the old server saw last

	s.RestoreFresh(bytes.NewReader(archive))
	start := s.Engine.Seq()
	if start != backedUp+1<<40 {
		t.Fatalf("the restored server starts at seq %d, want %d + 2^40", start, backedUp)
	}
	for after, want := range map[int64][]int64{backedUp - 1: {backedUp, start}, backedUp: {start}} {
		st := owner.Subscribe(t, after)
		var seqs []int64
		for _, ev := range st.Until(func(ev *svcv1.Event) bool { return ev.GetServerUpdated() }) {
			seqs = append(seqs, ev.GetSeq())
		}
		if !slices.Equal(seqs, want) {
			t.Fatalf("after_seq %d (backup at %d): replayed seqs %v, want %v", after, backedUp, seqs, want)
		}
		st.Close()
	}
	for _, after := range []int64{backedUp + 1, sawLast, backedUp + 1<<39} {
		st := owner.Subscribe(t, after)
		if ev := st.Next(); !ev.GetResync() {
			t.Fatalf("after_seq %d (backup at %d, restored at %d): %s, want resync", after, backedUp, start, kind(ev))
		}
		if err := st.Ended(); err != nil {
			t.Fatalf("after_seq %d: the stream ended with %v", after, err)
		}
	}

	st := owner.Subscribe(t, start)
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "after the restore"})
	if ev := st.Next(); ev.GetSeq() != start+1 || ev.GetMessageCreated().GetText() != "after the restore" {
		t.Fatalf("after the restore: %s seq %d, want the message at seq %d", kind(ev), ev.GetSeq(), start+1)
	}
	st.Close()
	s.Restart()
	if got := s.Engine.Seq(); got != start+1 {
		t.Fatalf("after a restart the seq is %d, want %d", got, start+1)
	}
}

// backupOver streams a backup from the running server over its admin socket in dir, as
// `hearth backup -o -` does, and returns the archive.
func backupOver(t *testing.T, dir string) []byte {
	t.Helper()
	resp, err := adminClient(dir).Get("http://hearth" + web.AdminBackupPath)
	if err != nil {
		t.Fatal(err)
	}
	archive, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Trailer.Get(web.BackupResultTrailer) != "ok" {
		t.Fatalf("GET /backup: %v, trailer %q", err, resp.Trailer.Get(web.BackupResultTrailer))
	}
	return archive
}

// TestPruneAfterARestoreKeepsTheNewestEventsByCount: the log keeps at least -replay-events
// events however old, and a restore's 2^40 jump in seqs is no events: once the days rule lets
// them go, the newest ten events are kept across the gap (six from before the backup, the
// restored server's server_updated and three messages), and a resume replays exactly those.
func TestPruneAfterARestoreKeepsTheNewestEventsByCount(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock), webtest.WithManualJobs(), func(o *engine.Options) { o.ReplayEvents = 10; o.ReplayDays = 1 })
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for i := range 8 {
		mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: fmt.Sprint("before the backup ", i)})
	}
	archive := backupOver(t, s.Dir)
	backedUp := s.Engine.Seq()
	s.RestoreFresh(bytes.NewReader(archive))
	start := s.Engine.Seq()
	for i := range 3 {
		mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: fmt.Sprint("after the restore ", i)})
	}
	clock.Advance(25 * time.Hour)
	if err := s.Engine.PruneLog(); err != nil {
		t.Fatal(err)
	}

	want := []int64{backedUp - 5, backedUp - 4, backedUp - 3, backedUp - 2, backedUp - 1, backedUp, start, start + 1, start + 2, start + 3}
	for _, after := range []int64{backedUp - 6, backedUp - 1, backedUp, start + 1} {
		st := owner.Subscribe(t, after)
		var seqs []int64
		for _, ev := range st.Until(func(ev *svcv1.Event) bool { return ev.GetSeq() == start+3 || ev.GetResync() }) {
			seqs = append(seqs, ev.GetSeq())
		}
		st.Close()
		w := slices.DeleteFunc(slices.Clone(want), func(seq int64) bool { return seq <= after })
		if !slices.Equal(seqs, w) {
			t.Fatalf("after_seq %d (backup at %d, restored at %d): replayed seqs %v, want %v", after, backedUp, start, seqs, w)
		}
	}
	// The seventh newest event and older are gone: a resume from before them reloads.
	for _, after := range []int64{backedUp - 7, 0} {
		st := owner.Subscribe(t, after)
		if ev := st.Next(); !ev.GetResync() {
			t.Fatalf("after_seq %d (oldest kept %d): %s, want resync", after, backedUp-5, kind(ev))
		}
		st.Close()
	}
	// And a later prune with nothing new deletes nothing more.
	clock.Advance(time.Hour)
	if err := s.Engine.PruneLog(); err != nil {
		t.Fatal(err)
	}
	st := owner.Subscribe(t, backedUp-6)
	if ev := st.Next(); ev.GetSeq() != backedUp-5 {
		t.Fatalf("after a second prune, replay from the oldest kept: %s seq %d, want seq %d", kind(ev), ev.GetSeq(), backedUp-5)
	}
	st.Close()
}
