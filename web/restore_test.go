package web_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

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

	resp, err := adminClient(s.Dir).Get("http://hearth" + web.AdminBackupPath)
	if err != nil {
		t.Fatal(err)
	}
	archive, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Trailer.Get(web.BackupResultTrailer) != "ok" {
		t.Fatalf("GET /backup: %v, trailer %q", err, resp.Trailer.Get(web.BackupResultTrailer))
	}
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
