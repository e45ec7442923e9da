package engine

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"hearth/engine/store"
)

// TestHealthyFailsWhenTheDatabaseDoes: Healthy answers nil while the database reads, and an
// unavailable error once it does not, or once the engine shuts down.
func TestHealthyFailsWhenTheDatabaseDoes(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(t.TempDir(), "db"), store.ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Healthy(); err != nil {
		t.Fatalf("a fresh engine: %v", err)
	}
	db.Close()
	err = e.Healthy()
	if CodeOf(err) != CodeUnavailable || !strings.Contains(err.Error(), "the database does not answer") {
		t.Fatalf("with the database closed: %v", err)
	}
	e.Close()
	if err := e.Healthy(); err != ErrClosed {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}
