package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"google.golang.org/protobuf/proto"
)

// Backups of the database are in Badger's backup format (what DB.Backup writes and DB.Load
// reads: each a little-endian uint64 length and a pb.KVList), written by the running server
// and loaded into a fresh database by a restore. New state needs nothing here: whatever is in
// the database is in the stream.

// backupList bounds one KVList of the stream: what Backup holds in memory besides one value.
const backupList = 1 << 20

// Backup writes a consistent snapshot of the whole database to w, in Badger's backup format,
// while the server keeps running, and returns the seq of the newest event in it.
//
// It reads in one read transaction, at the pace w takes the bytes. Badger's own DB.Backup does
// neither: each of its goroutines opens a transaction of its own (a commit between two tears
// the snapshot), and it queues up to 32 batches of 16 MB ahead of a slow writer, more than a
// small server has. It also copies every older version of each key; a snapshot needs the
// newest.
func (db *DB) Backup(w io.Writer) (int64, error) {
	txn := db.bdb.NewTransaction(false)
	defer txn.Discard()
	seq, err := (&Reader{txn: txn}).LastSeq()
	if err != nil {
		return 0, err
	}
	it := txn.NewIterator(badger.IteratorOptions{})
	defer it.Close()
	list := &pb.KVList{}
	size := 0
	flush := func() error {
		if len(list.Kv) == 0 {
			return nil
		}
		b, err := proto.Marshal(list)
		if err != nil {
			return err
		}
		if err := binary.Write(w, binary.LittleEndian, uint64(len(b))); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		list.Kv, size = list.Kv[:0], 0
		return nil
	}
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		if item.IsDeletedOrExpired() {
			continue
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return 0, err
		}
		list.Kv = append(list.Kv, &pb.KV{
			Key:       item.KeyCopy(nil),
			Value:     v,
			UserMeta:  []byte{item.UserMeta()},
			Version:   item.Version(),
			ExpiresAt: item.ExpiresAt(),
		})
		if size += len(v) + len(item.Key()); size >= backupList {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	return seq, flush()
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

// restoredMeta is the meta row Load leaves in a database it filled from a backup, until the
// engine that opens it has started the log past the gap that keeps the seqs the backed-up
// server went on to use after the backup from meaning anything here.
const restoredMeta = "restored"

// Restored reports whether the database was loaded from a backup and no engine has opened
// it since (see restoredMeta).
func (r *Reader) Restored() (bool, error) { return r.exists(metaKey(restoredMeta)) }

// ClearRestored removes the mark Restored reads.
func (b *Batch) ClearRestored() error { return b.delete(metaKey(restoredMeta)) }

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
	if err == nil {
		// The server that opens it starts its log past a gap (engine: restoreSeqGap).
		err = bdb.Update(func(txn *badger.Txn) error { return txn.Set(metaKey(restoredMeta), nil) })
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
