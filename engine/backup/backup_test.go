package backup_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/blob"
	"hearth/engine"
	"hearth/engine/backup"
	"hearth/engine/clock"
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var now = time.Date(2026, 11, 24, 3, 15, 0, 0, time.UTC)

// community is a data directory with a database that holds a community of n members, the
// default file bucket, and the server's engine on them.
type community struct {
	dir    string
	db     *store.DB
	eng    *engine.Engine
	bucket *blob.Bucket
}

func newCommunity(t *testing.T, members int) *community {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "db"), store.ProfileSmall, quiet)
	if err != nil {
		t.Fatal(err)
	}
	b, err := blob.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(db, engine.Options{BaseURL: "http://127.0.0.1", Log: quiet, Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		db.Close()
		b.Close()
	})
	for i := range members {
		_, _, err := e.Join(context.Background(), engine.JoinInput{
			Login: engine.Login{Issuer: "http://127.0.0.1", Subject: fmt.Sprint("m", i)}, ClientAddr: fmt.Sprint("10.0.0.", i), Req: &svcv1.JoinRequest{},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return &community{dir: dir, db: db, eng: e, bucket: b}
}

func (c *community) source() backup.Source {
	return backup.Source{DB: c.db, Dir: c.dir, Bucket: c.bucket, Version: "1.2.3", Log: quiet}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func take(t *testing.T, src backup.Source) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := backup.Write(context.Background(), &buf, src, now); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// entries lists a backup's entry names and contents.
func entries(t *testing.T, b []byte) (names []string, content map[string]string) {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	content = map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, content
		}
		if err != nil {
			t.Fatal(err)
		}
		c, _ := io.ReadAll(tr)
		names = append(names, h.Name)
		content[h.Name] = string(c)
	}
}

// TestBackupCarriesTheDataDirectoryButScratch: the database as a stream, and every file of the
// data directory but the database's folder, caches, temporary files, the socket and the
// bucket's older backups and start checks, whatever their names: state a new feature keeps
// there comes along with no change to the backup.
func TestBackupCarriesTheDataDirectoryButScratch(t *testing.T) {
	c := newCommunity(t, 3)
	for name, content := range map[string]string{
		"issuer-key":                         "issuer",
		"file-key":                           "file",
		"vapid-key":                          "push",
		"plugins/greeter.js":                 "chat.on('message', () => {})",
		"plugins/old.js.disabled":            "x",
		"some-future-state":                  "kept",
		"files/files/0001":                   "a file",
		"files/emoji/0002":                   "an emoji",
		"files/previews/0003":                "a preview",
		"files/backups/hearth-backup-1.tar":  "an older backup",
		"files/healthcheck/abc":              "check",
		"files/files/0004.18a2b3c4d5.tmp":    "an upload being written",
		"cache/wazero/compiled":              "cache",
		"tmp/spool-1":                        "spooled",
		".write-check-123":                   "",
		"plugins/.greeter.js.tmp":            "being written",
		"backups-outside-the-skip-list/x.gz": "carried",
		"certs/acme_account+key":             "the ACME account key",
		"certs/chat.example.com":             "a certificate and its key",
		"certs/chat.example.com.tmp123456":   "a certificate being written",
	} {
		writeFile(t, filepath.Join(c.dir, filepath.FromSlash(name)), content)
	}
	names, content := entries(t, take(t, c.source()))
	if names[0] != backup.ManifestName || names[1] != "db/00000001" {
		t.Fatalf("the backup starts with %v, want the manifest then the database", names[:2])
	}
	var files []string
	for _, n := range names[1:] {
		if !strings.HasPrefix(n, "db/") {
			files = append(files, n)
		}
	}
	want := []string{
		"backups-outside-the-skip-list/x.gz", "certs/acme_account+key", "certs/chat.example.com",
		"file-key", "files/emoji/0002", "files/files/0001", "files/previews/0003",
		"issuer-key", "plugins/greeter.js", "plugins/old.js.disabled", "some-future-state", "vapid-key",
	}
	if !slices.Equal(files, want) {
		t.Fatalf("the backup carries\n%v\nwant\n%v", files, want)
	}
	if content["files/files/0001"] != "a file" || content["plugins/greeter.js"] != "chat.on('message', () => {})" {
		t.Fatalf("contents: %q", content)
	}
	var m backup.Manifest
	if err := json.Unmarshal([]byte(content[backup.ManifestName]), &m); err != nil {
		t.Fatal(err)
	}
	if m.Format != backup.Format || m.Version != "1.2.3" || !m.Created.Equal(now) || !m.Files || m.Bucket != "file://"+filepath.ToSlash(filepath.Join(c.dir, "files")) {
		t.Fatalf("manifest = %+v", m)
	}
}

// TestABucketElsewhereIsNotCarried: with a bucket that is not the data directory's files
// folder, the files stay where they are, and the manifest names the bucket.
func TestABucketElsewhereIsNotCarried(t *testing.T) {
	c := newCommunity(t, 1)
	writeFile(t, filepath.Join(c.dir, "files", "files", "stale"), "from an earlier run")
	mem, err := blob.Open(context.Background(), "mem://", "")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	src := c.source()
	src.Bucket = mem
	names, content := entries(t, take(t, src))
	for _, n := range names {
		if strings.HasPrefix(n, "files/") {
			t.Fatalf("the backup carries %s of a bucket not in use", n)
		}
	}
	var m backup.Manifest
	json.Unmarshal([]byte(content[backup.ManifestName]), &m)
	if m.Files || m.Bucket != "mem://" {
		t.Fatalf("manifest = %+v", m)
	}
}

// TestRestoreBringsBackTheDatabaseAndFiles: a restored directory opens with the same seq and
// the same members, and holds the same files, each private to its owner.
func TestRestoreBringsBackTheDatabaseAndFiles(t *testing.T) {
	c := newCommunity(t, 5)
	writeFile(t, filepath.Join(c.dir, "issuer-key"), "issuer")
	writeFile(t, filepath.Join(c.dir, "files", "files", "0001"), "a file")
	var buf bytes.Buffer
	sum, err := backup.Write(context.Background(), &buf, c.source(), now)
	if err != nil || sum.Seq != c.eng.Seq() || sum.Files != 2 {
		t.Fatalf("backup: %+v %v; want seq %d and 2 files", sum, err, c.eng.Seq())
	}
	b := buf.Bytes()

	dir := filepath.Join(t.TempDir(), "new")
	// An empty folder where the backup brings one is no obstacle.
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o700); err != nil {
		t.Fatal(err)
	}
	res, err := backup.Restore(context.Background(), bytes.NewReader(b), dir, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if res.Seq != c.eng.Seq() || res.Files != 2 || res.Manifest.Version != "1.2.3" {
		t.Fatalf("restored seq %d, %d files, manifest %+v; want seq %d, 2 files", res.Seq, res.Files, res.Manifest, c.eng.Seq())
	}
	for name, want := range map[string]string{"issuer-key": "issuer", "files/files/0001": "a file"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Fatalf("%s = %q, %v", name, got, err)
		}
		if fi, _ := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s has mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
	db, err := store.Open(filepath.Join(dir, "db"), store.ProfileSmall, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e, err := engine.Open(db, engine.Options{BaseURL: "http://127.0.0.1", Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	owner, ok := e.MemberForLogin(engine.Login{Issuer: "http://127.0.0.1", Subject: "m0"})
	if !ok {
		t.Fatal("the owner is not a member of the restored community")
	}
	ms, err := e.ListMembers(context.Background(), owner, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The restored log goes on past a gap of 2^40 (engine/restoregap.go).
	if e.Seq() != c.eng.Seq()+1<<40 || len(ms.GetMembers()) != 5 {
		t.Fatalf("restored engine: seq %d, %d members; want seq %d + 2^40, 5", e.Seq(), len(ms.GetMembers()), c.eng.Seq())
	}
	assertOnlyEntries(t, dir, "db", "files", "issuer-key")
}

// assertOnlyEntries checks what a data directory holds at its top, staging folders included.
func assertOnlyEntries(t *testing.T, dir string, want ...string) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var got []string
	for _, d := range des {
		got = append(got, d.Name())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s holds %v, want %v", dir, got, want)
	}
}

// TestRestoreRefusesADirectoryThatHoldsADatabase, or one that already has a key the backup
// brings: nothing in it changes.
func TestRestoreRefusesADirectoryThatHoldsADatabase(t *testing.T) {
	c := newCommunity(t, 1)
	writeFile(t, filepath.Join(c.dir, "issuer-key"), "issuer")
	b := take(t, c.source())

	if _, err := backup.Restore(context.Background(), bytes.NewReader(b), c.dir, quiet); err == nil || !strings.Contains(err.Error(), "holds a database") {
		t.Fatalf("restore into a directory with a database: %v", err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "issuer-key"), "another key")
	_, err := backup.Restore(context.Background(), bytes.NewReader(b), dir, quiet)
	if err == nil || !strings.Contains(err.Error(), "issuer-key already exists") {
		t.Fatalf("restore over an issuer key: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "issuer-key")); string(got) != "another key" {
		t.Fatalf("the key was overwritten: %q", got)
	}
	assertOnlyEntries(t, dir, "issuer-key")
}

// TestADamagedBackupLeavesTheDirectoryAsItWas: cut short anywhere (in the database's parts or in
// a file after them), or with a byte changed, the restore fails saying so, and the directory is
// as it was: as empty as before, or still missing.
func TestADamagedBackupLeavesTheDirectoryAsItWas(t *testing.T) {
	c := newCommunity(t, 20)
	writeFile(t, filepath.Join(c.dir, "files", "files", "0001"), strings.Repeat("file bytes ", 10000))
	// An upload that does not compress, so that most of the archive is this file's.
	noise := make([]byte, 256<<10)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	writeFile(t, filepath.Join(c.dir, "files", "files", "0002"), string(noise))
	b := take(t, c.source())
	damaged := map[string][]byte{"empty": nil}
	for _, cut := range []int{10, len(b) / 3, len(b) / 2, len(b) - 9, len(b) - 1, len(b) - 100<<10} {
		damaged[fmt.Sprintf("cut at %d of %d", cut, len(b))] = b[:cut]
	}
	flipped := slices.Clone(b)
	flipped[len(b)/2] ^= 0x40
	damaged["a byte changed"] = flipped
	for name, d := range damaged {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := backup.Restore(context.Background(), bytes.NewReader(d), dir, quiet)
			if err == nil {
				t.Fatal("a damaged backup was restored")
			}
			if msg := err.Error(); !strings.Contains(msg, "the backup is damaged or cut short") && !strings.Contains(msg, "not a Hearth backup") {
				t.Errorf("a damaged backup's error: %q, want it to say the backup is damaged or cut short", msg)
			}
			assertOnlyEntries(t, dir)
			missing := filepath.Join(t.TempDir(), "new")
			if _, err := backup.Restore(context.Background(), bytes.NewReader(d), missing, quiet); err == nil {
				t.Fatal("a damaged backup was restored")
			}
			if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a failed restore into a missing directory left it there: %v", err)
			}
		})
	}
}

// archive builds a tar.gz of the given entries, in order.
func archive(t *testing.T, entries ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		body := h.Linkname
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
			h.Linkname = ""
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// file is a regular entry; its content rides in Linkname until archive writes it.
func file(name, content string) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o600, Linkname: content}
}

// TestRestoreRefusesWhatIsNoBackupOfOurs: no gzip, no manifest, a newer format, paths that
// climb out of the directory, links, and a backup without a database.
func TestRestoreRefusesWhatIsNoBackupOfOurs(t *testing.T) {
	manifest := func() *tar.Header { return file(backup.ManifestName, `{"format":1,"version":"1.0.0"}`) }
	for name, tc := range map[string]struct {
		b    []byte
		want string
	}{
		"not gzip":        {[]byte("PK\x03\x04 a zip"), "not gzip"},
		"no manifest":     {archive(t, file("issuer-key", "k")), "not a Hearth backup"},
		"newer format":    {archive(t, file(backup.ManifestName, `{"format":2,"version":"9.0.0"}`)), "format 2"},
		"climbs out":      {archive(t, manifest(), file("../escaped", "x")), "bad path"},
		"absolute":        {archive(t, manifest(), file("/etc/escaped", "x")), "bad path"},
		"a link":          {archive(t, manifest(), &tar.Header{Typeflag: tar.TypeSymlink, Name: "issuer-key", Linkname: "/etc/passwd"}), "neither a file nor a folder"},
		"no database":     {archive(t, manifest(), file("issuer-key", "k")), "no database"},
		"twice a file":    {archive(t, manifest(), file("issuer-key", "k"), file("issuer-key", "k")), "twice"},
		"parts apart":     {archive(t, manifest(), file("db/00000002", "x")), "out of order"},
		"second manifest": {archive(t, manifest(), manifest()), "second"},
	} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "data")
			_, err := backup.Restore(context.Background(), bytes.NewReader(tc.b), dir, quiet)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("restore: %v, want an error saying %q", err, tc.want)
			}
			// Nothing escaped into the parent, and the missing directory is still missing.
			assertOnlyEntries(t, parent)
		})
	}
}

// TestRunKeepsTheNewestBackups: each Run writes a backup named by its time into the folder
// and removes the oldest beyond Keep; other files in the folder are left alone.
func TestRunKeepsTheNewestBackups(t *testing.T) {
	c := newCommunity(t, 1)
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "notes.txt"), "mine")
	clk := clock.NewManual(now)
	var mu sync.Mutex
	var done []error
	svc := backup.NewService(c.source(), backup.Options{Dest: backup.Folder(folder), Keep: 2, Clock: clk,
		Done: func(_ time.Time, _ backup.Result, err error) { mu.Lock(); done = append(done, err); mu.Unlock() }})
	defer svc.Close()
	var names []string
	for i := range 3 {
		res, err := svc.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, filepath.Base(res.Location))
		if want := filepath.Join(folder, backup.Name(clk.Now())); res.Location != want {
			t.Fatalf("backup %d at %s, want %s", i, res.Location, want)
		}
		clk.Advance(time.Hour)
	}
	assertOnlyEntries(t, folder, names[1], names[2], "notes.txt")
	if len(done) != 3 || done[0] != nil {
		t.Fatalf("Done heard %v", done)
	}
}

// TestRunStopsOnAFullDisk: a destination whose disk is full (Room) gets no backup, and Last
// tells the outcome of the latest Run, a failure as a success.
func TestRunStopsOnAFullDisk(t *testing.T) {
	c := newCommunity(t, 1)
	folder := t.TempDir()
	full := errors.New("the server's disk is full")
	var room error
	clk := clock.NewManual(now)
	svc := backup.NewService(c.source(), backup.Options{Dest: backup.Folder(folder), Clock: clk, Room: func() error { return room }})
	defer svc.Close()
	if last := svc.Last(); !last.At.IsZero() || last.Err != nil {
		t.Fatalf("Last before any Run: %+v", last)
	}
	room = full
	if _, err := svc.Run(context.Background()); !errors.Is(err, full) {
		t.Fatalf("Run on a full disk: %v", err)
	}
	assertOnlyEntries(t, folder)
	if last := svc.Last(); !errors.Is(last.Err, full) || !last.At.Equal(now) {
		t.Fatalf("Last after a refused Run: %+v", last)
	}
	room = nil
	clk.Advance(time.Minute)
	res, err := svc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if last := svc.Last(); last.Err != nil || !last.At.Equal(now.Add(time.Minute)) || last.Result.Location != res.Location || last.Result.Bytes == 0 {
		t.Fatalf("Last after a backup: %+v", last)
	}
}

// TestScheduleTakesBackupsOnTheClock: every interval of the service's clock, one backup.
func TestScheduleTakesBackupsOnTheClock(t *testing.T) {
	c := newCommunity(t, 1)
	folder := t.TempDir()
	clk := clock.NewManual(now)
	svc := backup.NewService(c.source(), backup.Options{Dest: backup.Folder(folder), Keep: 0, Clock: clk})
	svc.Schedule(6 * time.Hour)
	clk.Advance(5 * time.Hour)
	assertOnlyEntries(t, folder)
	clk.Advance(13 * time.Hour)
	assertOnlyEntries(t, folder, backup.Name(now.Add(6*time.Hour)), backup.Name(now.Add(12*time.Hour)), backup.Name(now.Add(18*time.Hour)))
	svc.Close()
	clk.Advance(24 * time.Hour)
	if names, _ := backup.Folder(folder).List(context.Background()); len(names) != 3 {
		t.Fatalf("after Close the schedule went on: %v", names)
	}
}

// blockingDest holds a Save until told, so a test can ask for a second backup meanwhile.
type blockingDest struct {
	backup.Folder
	started, release chan struct{}
}

func (d blockingDest) Save(ctx context.Context, name string, write func(io.Writer) error) (string, error) {
	close(d.started)
	<-d.release
	return d.Folder.Save(ctx, name, write)
}

// TestOneBackupAtATime: a backup asked for while one runs is refused, not queued; after
// Close none starts.
func TestOneBackupAtATime(t *testing.T) {
	c := newCommunity(t, 1)
	dest := blockingDest{Folder: backup.Folder(t.TempDir()), started: make(chan struct{}), release: make(chan struct{})}
	svc := backup.NewService(c.source(), backup.Options{Dest: dest})
	first := make(chan error, 1)
	go func() {
		_, err := svc.Run(context.Background())
		first <- err
	}()
	<-dest.started
	if _, err := svc.Run(context.Background()); !errors.Is(err, backup.ErrRunning) {
		t.Fatalf("a second Run: %v, want ErrRunning", err)
	}
	if _, err := svc.WriteTo(context.Background(), io.Discard); !errors.Is(err, backup.ErrRunning) {
		t.Fatalf("a WriteTo meanwhile: %v, want ErrRunning", err)
	}
	close(dest.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	svc.Close()
	if _, err := svc.Run(context.Background()); !errors.Is(err, backup.ErrClosed) {
		t.Fatalf("Run after Close: %v, want ErrClosed", err)
	}
}

// TestDeletionsWaitForTheBackup: an object deleted while a backup copies the bucket is still
// in the backup, and is gone once the backup ends.
func TestDeletionsWaitForTheBackup(t *testing.T) {
	c := newCommunity(t, 1)
	ctx := context.Background()
	if _, err := c.bucket.Put(ctx, blob.FileKey("doomed"), strings.NewReader("still here"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	svc := backup.NewService(c.source(), backup.Options{Dest: backup.Folder(t.TempDir())})
	defer svc.Close()
	// A destination that deletes the object while the backup runs (its first write is the
	// archive's header, before the database is read).
	mid := &deletingWriter{del: func() { c.bucket.Delete(ctx, blob.FileKey("doomed")) }}
	if _, err := svc.WriteTo(ctx, mid); err != nil {
		t.Fatal(err)
	}
	if !mid.deleted {
		t.Fatal("the deletion did not run during the backup")
	}
	_, content := entries(t, mid.buf.Bytes())
	if content["files/files/doomed"] != "still here" {
		t.Fatalf("the backup lost a file deleted while it ran: %v", content["files/files/doomed"])
	}
	if _, err := c.bucket.Stat(ctx, blob.FileKey("doomed")); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("after the backup the deleted object: %v, want gone", err)
	}
}

// deletingWriter runs del on its first write.
type deletingWriter struct {
	buf     bytes.Buffer
	del     func()
	deleted bool
}

func (w *deletingWriter) Write(p []byte) (int, error) {
	if !w.deleted {
		w.deleted = true
		w.del()
	}
	return w.buf.Write(p)
}
