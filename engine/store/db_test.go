package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// TestBatchLoadCountsAsBadgerDoes: Load grows with every write as Badger counts it against its
// limits on a transaction (small values in full, large ones as a pointer to the value log, and
// the number of writes), so that the write Badger refuses with ErrTooBig is the one that would
// have taken Load to 1, and never an earlier one.
func TestBatchLoadCountsAsBadgerDoes(t *testing.T) {
	db := openTestDB(t)
	for _, valueLen := range []int{0, 100, 500, 1023, 1024, 5000} {
		b := db.NewBatch()
		v := make([]byte, valueLen)
		writes := 0
		for {
			k := []byte(fmt.Sprintf("\x00test/%08d", writes))
			would := *b
			would.counted(k, v)
			err := b.set(k, v)
			if errors.Is(err, ErrTooBig) {
				if would.Load() < 1 {
					t.Errorf("value of %d bytes: refused at load %.4f after %d writes", valueLen, would.Load(), writes)
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Load() >= 1 {
				t.Errorf("value of %d bytes: load %.4f after %d writes, and no refusal", valueLen, b.Load(), writes)
				break
			}
			writes++
		}
		b.Discard()
	}
}

// TestOpensTablesWrittenCompressed: a database whose tables were written with the small
// profile's earlier options (Snappy, 2 MB tables doubling by level) opens with today's, reads
// back, and compacts its old tables together with new ones.
func TestOpensTablesWrittenCompressed(t *testing.T) {
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	old := badgerOptions(dir, ProfileSmall, log).WithCompression(options.Snappy).WithBaseTableSize(2 << 20)
	old.TableSizeMultiplier = 2
	value := func(i int) []byte { return []byte(fmt.Sprintf("value %d, %s", i, strings.Repeat("x", i%300))) }
	put := func(db *badger.DB, from, to int) {
		t.Helper()
		wb := db.NewWriteBatch()
		for i := from; i < to; i++ {
			if err := wb.Set([]byte(fmt.Sprintf("\x00test/%08d", i)), value(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := wb.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	bdb, err := badger.Open(old)
	if err != nil {
		t.Fatal(err)
	}
	put(bdb, 0, 50_000)
	if err := bdb.Close(); err != nil { // the memtable goes to a table
		t.Fatal(err)
	}
	db, err := Open(dir, ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	compressed := 0
	for _, ti := range db.bdb.Tables() {
		if ti.OnDiskSize < ti.UncompressedSize/2 { // the values compress well
			compressed++
		}
	}
	if compressed == 0 {
		t.Fatal("no table was written compressed")
	}
	put(db.bdb, 50_000, 100_000)
	check := func() {
		t.Helper()
		err := db.bdb.View(func(txn *badger.Txn) error {
			for i := 0; i < 100_000; i += 7 {
				item, err := txn.Get([]byte(fmt.Sprintf("\x00test/%08d", i)))
				if err != nil {
					return fmt.Errorf("key %d: %w", i, err)
				}
				v, err := item.ValueCopy(nil)
				if err != nil {
					return err
				}
				if !bytes.Equal(v, value(i)) {
					return fmt.Errorf("key %d: %q", i, v)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check()
	if err := db.bdb.Flatten(1); err != nil {
		t.Fatal(err)
	}
	check()
	for _, ti := range db.bdb.Tables() {
		if ti.OnDiskSize < ti.UncompressedSize/2 {
			t.Errorf("table %d at level %d is still compressed after the compaction", ti.ID, ti.Level)
		}
	}
}
