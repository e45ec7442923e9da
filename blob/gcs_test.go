package blob_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"hearth/blob"
)

// gs:// opens and speaks the JSON API over HTTP, with and without the release build's
// disable_grpc_modules tag (README.md, Build it): the tag leaves out gRPC DirectPath only.
// A stand-in for the JSON API (through the client's emulator setting) answers 404 to all.
func TestGCSBucketSpeaksJSONOverHTTP(t *testing.T) {
	var (
		mu    sync.Mutex
		paths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.EscapedPath())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":{"code":404,"message":"No such object"}}`))
	}))
	defer srv.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", srv.Listener.Addr().String())

	b := open(t, "gs://hearth-test", "")
	defer b.Close()
	if _, err := b.Stat(t.Context(), blob.FileKey("x")); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Stat of a missing object: got %v, want ErrNotFound", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || !strings.Contains(paths[0], "/b/hearth-test/o/files%2Fx") {
		t.Fatalf("requests %q, want a GET of hearth-test's object files/x", paths)
	}
}
