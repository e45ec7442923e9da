package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRestoreFromAStalledServerGivesUp: `hearth restore URL` against a loopback server that
// never answers, and one that stops sending halfway, ends with one line saying so (instead of
// waiting forever, as with a client without deadlines) and leaves no data directory behind;
// a server that is slow but keeps sending is waited for, however long the whole takes.
func TestRestoreFromAStalledServerGivesUp(t *testing.T) {
	saved := restoreDownload
	t.Cleanup(func() { restoreDownload = saved })
	restoreDownload = downloadTimes{connect: 5 * time.Second, handshake: 5 * time.Second, header: 300 * time.Millisecond, stall: 500 * time.Millisecond}

	// The start of a gzipped tar whose first entry is not a Hearth manifest.
	var archive bytes.Buffer
	gz := gzip.NewWriter(&archive)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "not-a-manifest", Mode: 0o600, Size: 0})
	tw.Close()
	gz.Close()
	prefix := archive.Bytes()[:20]

	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/silent.tar.gz":
			// Takes the request and never answers.
		case "/halfway.tar.gz":
			w.Write(prefix)
			w.(http.Flusher).Flush()
		case "/trickle.tar.gz":
			// One byte every 20 ms: three times the stall window in all, never a stall.
			for i := range archive.Len() {
				w.Write(archive.Bytes()[i : i+1])
				w.(http.Flusher).Flush()
				select {
				case <-time.After(20 * time.Millisecond):
				case <-release:
					return
				}
			}
			return
		}
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	if archive.Len()*20 < 3*500 {
		t.Fatalf("the trickled archive (%d bytes) is too short to outlast the stall window", archive.Len())
	}

	restore := func(path string) (string, error) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "data")
		done := make(chan error, 1)
		var out, errOut bytes.Buffer
		go func() { done <- restoreCommand([]string{"-data", dir, srv.URL + path}, &out, &errOut) }()
		select {
		case err := <-done:
			if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
				t.Errorf("restore of %s left %s: %v", path, dir, serr)
			}
			return out.String(), err
		case <-time.After(time.Minute):
			t.Fatalf("restore of %s still waits after a minute", path)
			return "", nil
		}
	}

	if _, err := restore("/silent.tar.gz"); err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
		t.Errorf("restore from a server that never answers: %v", err)
	}
	_, err := restore("/halfway.tar.gz")
	if err == nil || err.Error() != "restore: "+srv.URL+"/halfway.tar.gz stalled: nothing arrived for 500ms" {
		t.Errorf("restore from a server that stops sending: %v", err)
	}
	if _, err := restore("/trickle.tar.gz"); err == nil || !strings.Contains(err.Error(), `not a Hearth backup: it starts with "not-a-manifest"`) {
		t.Errorf("restore from a slow server that keeps sending: %v, want it read to the end (and refused as not a backup)", err)
	}
}
