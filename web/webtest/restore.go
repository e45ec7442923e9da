package webtest

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"hearth/engine/backup"
)

// RestoreFresh plays the operator's restore on a new machine: the server stops, its data
// directory is emptied (a fresh disk), the backup is restored into it as `hearth restore`
// does (backup.Restore), and the server starts on it again at the same address and base URL.
// Open streams end. The test's file bucket stays open across it: a file bucket is a folder,
// so it finds what the restore brought back.
func (s *Server) RestoreFresh(r io.Reader) backup.Summary {
	s.t.Helper()
	var res backup.Summary
	s.RestartAfter(func() {
		entries, err := os.ReadDir(s.Dir)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(s.Dir, e.Name())); err != nil {
				s.t.Fatal(err)
			}
		}
		if res, err = backup.Restore(context.Background(), r, s.Dir, Logger()); err != nil {
			s.t.Fatalf("restore: %v", err)
		}
	})
	return res
}
