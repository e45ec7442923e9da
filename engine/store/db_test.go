package store

import (
	"errors"
	"fmt"
	"testing"
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
