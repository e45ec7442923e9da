package store

import (
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// Unwritten reports whether a failed Commit wrote nothing: Badger refused the batch before
// writing any of it (too big, in conflict with another transaction, writes blocked because
// the database is closing). After any other failure Badger may have written the batch (it
// puts it in its memtable and log before it syncs the log), and whether it is stored is
// known only after a restart.
func Unwritten(err error) bool {
	return errors.Is(err, badger.ErrTxnTooBig) || errors.Is(err, badger.ErrConflict) || errors.Is(err, badger.ErrBlockedWrites)
}
