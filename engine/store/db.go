package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"hearth/engine/diskspace"
)

// Profile sizes Badger's memory use.
type Profile string

const (
	// ProfileDefault keeps Badger's own defaults, sized for a server with memory to spare.
	ProfileDefault Profile = "default"
	// ProfileSmall fits a 512 MB VPS: small memtables and caches (see docs/performance.md).
	ProfileSmall Profile = "small"
)

// ParseProfile checks a -memory value.
func ParseProfile(s string) (Profile, error) {
	switch Profile(s) {
	case ProfileDefault, ProfileSmall:
		return Profile(s), nil
	}
	return "", fmt.Errorf("unknown memory profile %q: use %q or %q", s, ProfileSmall, ProfileDefault)
}

// schemaVersion is written into a new database; Open refuses a database from a newer version.
const schemaVersion = 1

// DB is the open database.
type DB struct {
	bdb  *badger.DB
	dir  string
	stop context.CancelFunc
	done chan struct{}
	// room, when set, says whether the disk has room for the value log's garbage collection,
	// which writes before it frees (SetRoom).
	room atomic.Pointer[func() error]
}

// SetRoom makes the value log's garbage collection wait while room returns an error (a full
// disk): collecting rewrites the live values of a log file before it deletes the file.
func (db *DB) SetRoom(room func() error) { db.room.Store(&room) }

// Open opens (or creates) the database in dir. Every commit is synced to disk: the engine's
// single writer commits many changes at once, so one sync serves many of them.
func Open(dir string, profile Profile, log *slog.Logger) (*DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	bdb, err := badger.Open(badgerOptions(dir, profile, log))
	if err != nil {
		return nil, fmt.Errorf("open database in %s: %w", filepath.Clean(dir), err)
	}
	db := &DB{bdb: bdb, dir: dir, done: make(chan struct{})}
	if err := db.checkSchema(); err != nil {
		bdb.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	db.stop = cancel
	go db.collectGarbage(ctx)
	return db, nil
}

// smallMemTable is the small profile's memtable. It also sizes the tables, for the sake of the
// memory that writing them takes (docs/performance.md, "Imports"). Badger builds each table in
// memory, in a buffer twice the base table size that grows by doubling when the table does not
// fit, and keeps up to eight such buffers between tables, at the largest they grew to, besides
// those of the tables it is writing. A table flushed from a memtable holds the whole memtable,
// so a base table size of half the memtable makes every buffer 8 MB and no larger. Tables of
// one size at every level keep it so however large the database grows (by default each level's
// tables are twice the size of the level above's). And no compression: Badger fills a
// compressed table up to its size compressed, holding two to three times as much uncompressed,
// plus room for the compressed copy of each block. With 2 MB compressed tables of doubling
// size, the buffers grew with the database, to over 300 MB of heap during an import of a few
// hundred thousand messages; now they stay under some 100 MB, and the database takes 2.5
// times the disk. Tables written before keep their compression (Badger records it with each
// table) until compactions rewrite them.
const smallMemTable = 8 << 20

func badgerOptions(dir string, profile Profile, log *slog.Logger) badger.Options {
	opts := badger.DefaultOptions(dir).
		WithSyncWrites(true).
		WithLogger(badgerLogger{log}).
		WithLoggingLevel(badger.WARNING)
	if profile == ProfileSmall {
		opts = opts.
			WithMemTableSize(smallMemTable).
			WithNumMemtables(2).
			WithBlockCacheSize(16 << 20).
			WithIndexCacheSize(8 << 20).
			WithValueLogFileSize(64 << 20).
			WithNumLevelZeroTables(2).
			WithNumLevelZeroTablesStall(4).
			WithNumCompactors(2).
			WithBaseTableSize(smallMemTable / 2).
			WithCompression(options.None).
			WithValueThreshold(1 << 10)
		// Every level's tables of the one size (Badger doubles it at each level below the
		// first by default): see smallMemTable.
		opts.TableSizeMultiplier = 1
	}
	return opts
}

func (db *DB) checkSchema() error {
	return db.bdb.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(metaKey("schema"))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return txn.Set(metaKey("schema"), putSeq(nil, schemaVersion))
		}
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		if got := getSeq(v); got > schemaVersion {
			return fmt.Errorf("the database was written by a newer Hearth (schema %d, this one reads up to %d)", got, schemaVersion)
		}
		return nil
	})
}

// collectGarbage reclaims value log space now and then; Badger never does it by itself.
func (db *DB) collectGarbage(ctx context.Context) {
	defer close(db.done)
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for db.hasRoom() && db.bdb.RunValueLogGC(0.5) == nil {
			}
		}
	}
}

func (db *DB) hasRoom() bool {
	room := db.room.Load()
	return room == nil || (*room)() == nil
}

// Close closes the database after the last commit.
func (db *DB) Close() error {
	db.stop()
	<-db.done
	return db.bdb.Close()
}

// View runs fn on a read-only snapshot of the database.
func (db *DB) View(fn func(r *Reader) error) error {
	return db.bdb.View(func(txn *badger.Txn) error { return fn(&Reader{txn: txn}) })
}

// NewBatch starts a read-write transaction. Reads through it see its own writes.
func (db *DB) NewBatch() *Batch {
	return &Batch{
		Reader:    Reader{txn: db.bdb.NewTransaction(true)},
		threshold: db.bdb.Opts().ValueThreshold,
		maxSize:   db.bdb.MaxBatchSize(),
		maxCount:  db.bdb.MaxBatchCount(),
		// Badger counts the entry that ends a transaction from the start.
		size:  int64(len("!badger!txn")) + 10,
		count: 1,
	}
}

// Size reports the on-disk sizes of the LSM tree and the value log.
func (db *DB) Size() (lsm, vlog int64) { return db.bdb.Size() }

// DiskUsage is the disk space the database's files take now (the blocks allocated to them,
// where the system tells: the value log is a sparse file longer than what it holds).
func (db *DB) DiskUsage() (int64, error) { return diskspace.Used(db.dir) }

// ErrTooBig reports a batch that does not fit in one transaction; the writer splits it.
var ErrTooBig = badger.ErrTxnTooBig

// Reader reads inside a transaction.
type Reader struct {
	txn *badger.Txn
}

// Batch writes inside a transaction; nothing is visible to others before Commit.
type Batch struct {
	Reader
	threshold int64 // values from this size on go to the value log
	// Badger's limits on a transaction, and what the batch's writes count against them.
	maxSize, maxCount int64
	size, count       int64
}

// Load is how full the batch is, from 0 to 1: the greater of its size and its number of
// writes, each over Badger's limit on a transaction (15% of a memtable, 1.2 MB in the small
// profile, and that over the size of a skiplist node: some 13,000 writes). A write that would
// take it to 1 fails with ErrTooBig. Sizes are counted as Badger counts them: each key with its
// value, or with a pointer to the value log for a value of ValueThreshold or more, and a few
// bytes of its own. A writer that puts many things in one transaction stops in time and carries
// on in the next one.
func (b *Batch) Load() float64 {
	return max(float64(b.size)/float64(b.maxSize), float64(b.count)/float64(b.maxCount))
}

func (b *Batch) counted(k, v []byte) {
	n := int64(len(v))
	if n >= b.threshold {
		n = 12 // a value pointer
	}
	b.size += int64(len(k)) + n + 2 + 10
	b.count++
}

func (b *Batch) set(k, v []byte) error {
	if err := b.txn.Set(k, v); err != nil {
		return err
	}
	b.counted(k, v)
	return nil
}

func (b *Batch) setEntry(e *badger.Entry) error {
	if err := b.txn.SetEntry(e); err != nil {
		return err
	}
	b.counted(e.Key, e.Value)
	return nil
}

func (b *Batch) delete(k []byte) error {
	if err := b.txn.Delete(k); err != nil {
		return err
	}
	b.counted(k, nil)
	return nil
}

// Commit makes the batch durable (synced) and visible.
func (b *Batch) Commit() error { return b.txn.Commit() }

// Discard drops the batch. Safe after Commit.
func (b *Batch) Discard() { b.txn.Discard() }

type badgerLogger struct{ log *slog.Logger }

func (l badgerLogger) Errorf(f string, a ...any) {
	l.log.Error(fmt.Sprintf(f, a...), "component", "badger")
}
func (l badgerLogger) Warningf(f string, a ...any) {
	l.log.Warn(fmt.Sprintf(f, a...), "component", "badger")
}
func (l badgerLogger) Infof(f string, a ...any) {
	l.log.Debug(fmt.Sprintf(f, a...), "component", "badger")
}
func (l badgerLogger) Debugf(f string, a ...any) {
	l.log.Debug(fmt.Sprintf(f, a...), "component", "badger")
}
