package store

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
)

// Backups of the database are Badger's own backup stream: every key with its versions,
// written by the running server and loaded into a fresh database by a restore. New state
// needs nothing here: whatever is in the database is in the stream.

// backupBatch bounds what the stream gathers before handing it to the writer. Badger's
// default is 100 MB, more than a small server may spend on a backup.
const backupBatch = 4 << 20

// Backup writes a consistent snapshot of the whole database to w, in Badger's backup format,
// while the server keeps running.
func (db *DB) Backup(w io.Writer) error {
	stream := db.bdb.NewStream()
	stream.LogPrefix = "backup"
	// Each of a stream's goroutines reads in a read transaction of its own, opened when it
	// starts: with several, a commit between two starts would give a snapshot that is no
	// snapshot. One goroutine reads at one point in time.
	stream.NumGo = 1
	stream.MaxSize = backupBatch
	_, err := stream.Backup(w, 0)
	return err
}

// Ping reads from the database, so that a health check fails when the database does.
func (db *DB) Ping() error {
	return db.bdb.View(func(txn *badger.Txn) error {
		_, err := txn.Get(metaKey("schema"))
		return err
	})
}

// HasDatabase reports whether dir holds a database (anything at all: a restore never mixes
// a backup into an existing database).
func HasDatabase(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return len(entries) > 0, nil
}

// Load creates the database in dir (which must hold none) from a backup stream written by
// Backup, checks that this version can read it, and returns its newest event seq.
func Load(dir string, r io.Reader, log *slog.Logger) (int64, error) {
	if has, err := HasDatabase(dir); err != nil {
		return 0, err
	} else if has {
		return 0, fmt.Errorf("%s already holds a database", filepath.Clean(dir))
	}
	// The small profile: a restore runs on the machine the server will run on. Badger is
	// opened bare, so that nothing is written before the backup's own keys.
	bdb, err := badger.Open(badgerOptions(dir, ProfileSmall, log))
	if err != nil {
		return 0, fmt.Errorf("create the database in %s: %w", filepath.Clean(dir), err)
	}
	err = bdb.Load(r, 16)
	if err == nil {
		err = bdb.View(func(txn *badger.Txn) error {
			_, err := txn.Get(metaKey("schema"))
			if errors.Is(err, badger.ErrKeyNotFound) {
				return errors.New("the backup holds no Hearth database (no schema version)")
			}
			return err
		})
	}
	if cerr := bdb.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("load the database: %w", err)
	}
	db, err := Open(dir, ProfileSmall, log)
	if err != nil {
		return 0, err
	}
	var seq int64
	err = db.View(func(rd *Reader) error {
		seq, err = rd.LastSeq()
		return err
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return seq, err
}
