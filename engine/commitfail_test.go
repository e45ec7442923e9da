package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hearth/blob"
	"hearth/engine/outbound"
	"hearth/engine/sandbox"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// addRole is a change that adds a role and announces it, as the API's changes do.
func addRole(e *Engine, id string) (int64, error) {
	return submit(e, func(tx *Tx) (int64, error) {
		if err := tx.putRole(role(id)); err != nil {
			return 0, err
		}
		return tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_RoleUpdated{RoleUpdated: role(id)}})
	})
}

// loggedRoles is the roles the event log announces, by seq.
func loggedRoles(t *testing.T, e *Engine) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	err := e.db.View(func(r *store.Reader) error {
		return r.Events(0, 1<<62, func(le *storepb.LoggedEvent) (bool, error) {
			if ru := le.GetEvent().GetRoleUpdated(); ru != nil {
				out[le.GetEvent().GetSeq()] = ru.GetId()
			}
			return true, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A commit that fails after Badger wrote the batch (its WAL sync failed: the entries are in the
// memtable, and in the WAL if the disk kept them) has an unknown outcome. The writer used to
// take it as "nothing stored" and go on from the same seq: the next change overwrote the
// event of the one that failed, whose rows stayed, so after a restart a role existed that no
// event announced. Now the engine stops taking changes until a restart, which settles what the
// disk holds: state and log agree.
func TestACommitWithUnknownOutcomeStopsTheWriter(t *testing.T) {
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(dir, "db"), store.ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := addRole(e, "before"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.Stopped():
		t.Fatal("Stopped is closed before any commit failed")
	default:
	}
	failOnce := true
	e.commitBatch = func(b *store.Batch) error {
		if err := b.Commit(); err != nil || !failOnce {
			return err
		}
		failOnce = false
		return errors.New("sync: input/output error")
	}
	if _, err := addRole(e, "unsure"); CodeOf(err) != CodeInternal {
		t.Fatalf("the change whose commit failed: %v, want an internal error", err)
	}
	if _, err := addRole(e, "after"); CodeOf(err) != CodeUnavailable {
		t.Fatalf("a change after the failed commit: %v, want unavailable", err)
	}
	if err := e.Healthy(); CodeOf(err) != CodeUnavailable {
		t.Fatalf("Healthy after the failed commit: %v, want unavailable", err)
	}
	// The process is told, to exit and be restarted (cmd/hearth).
	select {
	case <-e.Stopped():
	default:
		t.Fatal("Stopped is not closed after the failed commit")
	}
	if err := e.StopCause(); CodeOf(err) != CodeUnavailable || !strings.Contains(err.Error(), "restarted") {
		t.Fatalf("StopCause after the failed commit: %v, want unavailable until restarted", err)
	}
	e.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	again := openTestEngine(t, dir)
	logged := loggedRoles(t, again)
	for _, r := range again.Snapshot().Roles() {
		if !slices.Contains(mapValues(logged), r.GetId()) {
			t.Errorf("role %q is stored but no event announced it (log: %v)", r.GetId(), logged)
		}
	}
	for seq, id := range logged {
		if !slices.ContainsFunc(again.Snapshot().Roles(), func(r *svcv1.Role) bool { return r.GetId() == id }) {
			t.Errorf("the event at seq %d announces role %q, which is not stored", seq, id)
		}
	}
	if _, err := addRole(again, "restarted"); err != nil {
		t.Fatalf("a change after the restart: %v", err)
	}
}

func mapValues(m map[int64]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// fakeInspector sniffs every file as info says, and reads every page as page.
type fakeInspector struct {
	info sandbox.Info
	page sandbox.Preview
}

func (f fakeInspector) Inspect(context.Context, []byte) (sandbox.Info, error) { return f.info, nil }

func (f fakeInspector) Preview(context.Context, sandbox.Page) (sandbox.Preview, error) {
	return f.page, nil
}

// Decode finds every image whole, of the type and size it sniffs.
func (f fakeInspector) Decode(context.Context, []byte, sandbox.DecodeLimits) (sandbox.Decoded, error) {
	return sandbox.Decoded{ContentType: f.info.ContentType, Width: f.info.Width, Height: f.info.Height, Frames: 1}, nil
}

// filedCommunity is a testCommunity with a file bucket on its data folder (kept across its
// restarts), a sandbox that sniffs as told, and jobs run by the test.
type filedCommunity struct {
	*testCommunity
	bucket *blob.Bucket
	signer *blob.Signer
}

func openFiledCommunity(t *testing.T, sniff sandbox.Info) *filedCommunity {
	return openFiledCommunityWith(t, fakeInspector{info: sniff}, outbound.Policy{})
}

func openFiledCommunityWith(t *testing.T, sniff fakeInspector, policy outbound.Policy) *filedCommunity {
	t.Helper()
	c := &filedCommunity{testCommunity: &testCommunity{t: t, dir: t.TempDir(), clock: newTestClock()}}
	var err error
	if c.bucket, err = blob.Open(context.Background(), "", c.dir); err != nil {
		t.Fatal(err)
	}
	if c.signer, err = blob.LoadOrCreateSigner(c.dir); err != nil {
		t.Fatal(err)
	}
	c.options = func(o *Options) {
		// The wall clock, as uploads and previews have it in the server.
		o.Clock = nil
		o.Bucket, o.Signer, o.Sandbox, o.PreviewPolicy, o.ManualJobs = c.bucket, c.signer, sniff, policy, true
	}
	c.open()
	t.Cleanup(func() {
		c.close()
		c.bucket.Close()
	})
	return c
}

// failCommits has every later commit of the writer store its batch and then report an error,
// as when Badger's sync of its log fails.
func (c *filedCommunity) failCommits() {
	c.e.commitBatch = func(b *store.Batch) error {
		if err := b.Commit(); err != nil {
			return err
		}
		return errors.New("sync: input/output error")
	}
}

// An upload whose row's commit has an unknown outcome keeps its file: the row may be there
// after the restart (here it is), and a row must never point at a missing file. (The upload
// used to delete the file whenever the commit reported an error.)
func TestAnUploadWhoseCommitOutcomeIsUnknownKeepsItsFile(t *testing.T) {
	ctx := context.Background()
	c := openFiledCommunity(t, sandbox.Info{ContentType: "text/plain; charset=utf-8"})
	m, _, err := c.e.Join(ctx, JoinInput{Login: Login{Issuer: "http://127.0.0.1", Subject: "s"}, ClientAddr: "a", Req: &svcv1.JoinRequest{}})
	if err != nil {
		t.Fatal(err)
	}
	c.failCommits()
	if _, err := c.e.Upload(ctx, Caller{ID: m.GetId()}, "notes.txt", strings.NewReader("kept")); CodeOf(err) != CodeInternal {
		t.Fatalf("the upload whose commit failed: %v, want an internal error", err)
	}
	c.close()
	c.open()
	var ids []string
	if err := c.db.View(func(r *store.Reader) error {
		return r.UnusedBefore(1<<62, 10, func(id string) { ids = append(ids, id) })
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("upload rows after the restart: %v, want the one whose commit landed", ids)
	}
	if _, err := c.bucket.Stat(ctx, blob.FileKey(ids[0])); err != nil {
		t.Fatalf("the stored upload's file: %v", err)
	}
}

// The same for emoji: a request whose commit has an unknown outcome keeps the images of that
// commit's rows.
func TestEmojiWhoseCommitOutcomeIsUnknownKeepTheirImages(t *testing.T) {
	ctx := context.Background()
	c := openFiledCommunity(t, sandbox.Info{ContentType: "image/png", Width: 16, Height: 16})
	m, _, err := c.e.Join(ctx, JoinInput{Login: Login{Issuer: "http://127.0.0.1", Subject: "owner"}, ClientAddr: "a", Req: &svcv1.JoinRequest{}})
	if err != nil {
		t.Fatal(err)
	}
	up, err := c.e.BeginEmojiUpload(ctx, Caller{ID: m.GetId()})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Abort()
	if err := up.AddFile("wave.png", strings.NewReader("\x89PNG not really")); err != nil {
		t.Fatal(err)
	}
	c.failCommits()
	if _, err := up.Finish(); CodeOf(err) != CodeInternal {
		t.Fatalf("the request whose commit failed: %v, want an internal error", err)
	}
	c.close()
	c.open()
	var rec *storepb.EmojiRecord
	if err := c.db.View(func(r *store.Reader) error {
		id, err := r.EmojiIDByName("wave")
		if err != nil {
			return err
		}
		rec, err = r.Emoji(id)
		return err
	}); err != nil {
		t.Fatalf("the emoji whose commit landed: %v", err)
	}
	if _, err := c.bucket.Stat(ctx, blob.EmojiKey(rec.GetId())); err != nil {
		t.Fatalf("its image: %v", err)
	}
}

// The same for link previews: a cached preview whose commit has an unknown outcome keeps its
// image.
func TestAPreviewWhoseCommitOutcomeIsUnknownKeepsItsImage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/i.png" {
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG not really"))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<title>A page</title>"))
	}))
	defer srv.Close()
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())
	c := openFiledCommunityWith(t, fakeInspector{
		info: sandbox.Info{ContentType: "image/png", Width: 16, Height: 16},
		page: sandbox.Preview{Title: "A page", Image: srv.URL + "/i.png"},
	}, outbound.Policy{Exceptions: []netip.AddrPort{addr}})
	l := link{written: srv.URL + "/", fetch: srv.URL + "/", key: sha256.Sum256([]byte(srv.URL + "/"))}
	c.failCommits()
	if _, err := c.e.fetchPreview(l); err != nil {
		t.Fatal(err)
	}
	c.close()
	c.open()
	var rec *storepb.PreviewRecord
	if err := c.db.View(func(r *store.Reader) error {
		var err error
		rec, err = r.Preview(l.key)
		return err
	}); err != nil {
		t.Fatalf("the preview whose commit landed: %v", err)
	}
	if rec.GetImageId() == "" {
		t.Fatalf("the preview has no image: %v", rec)
	}
	if _, err := c.bucket.Stat(context.Background(), blob.PreviewKey(rec.GetImageId())); err != nil {
		t.Fatalf("its image: %v", err)
	}
}

// A commit Badger refused before writing anything (here, too big for one transaction) is no
// reason to stop: the writer goes on.
func TestACommitRefusedBeforeWritingDoesNotStopTheWriter(t *testing.T) {
	e := openTestEngine(t, t.TempDir())
	refused := false
	e.commitBatch = func(b *store.Batch) error {
		if !refused {
			refused = true
			return fmt.Errorf("commit: %w", store.ErrTooBig)
		}
		return b.Commit()
	}
	if _, err := addRole(e, "first"); CodeOf(err) != CodeInternal {
		t.Fatalf("the change whose commit was refused: %v, want an internal error", err)
	}
	if _, err := addRole(e, "second"); err != nil {
		t.Fatalf("a change after it: %v", err)
	}
	if err := e.Healthy(); err != nil {
		t.Fatalf("Healthy: %v", err)
	}
}
