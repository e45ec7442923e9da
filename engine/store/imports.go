package store

import (
	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
)

// Imports and data exports (EXTENSIONS.md 9): the rows under 0xE8-0xEF.
const (
	// prefixImported maps an import's source key to what it became (storepb.ImportedRecord).
	prefixImported byte = 0xE8
	// prefixPlaceholderUse lists, per placeholder member, the messages that name it (as
	// author, reactor or mention): ClaimMember's work list.
	prefixPlaceholderUse byte = 0xE9
	// prefixExport is an ExportMyData zip (storepb.ExportRecord).
	prefixExport byte = 0xEA
)

// Imported reads what a source key became; ErrNotFound when it was never imported.
func (r *Reader) Imported(sourceKey string) (*storepb.ImportedRecord, error) {
	rec := new(storepb.ImportedRecord)
	if err := r.getProto(key(prefixImported, sourceKey), rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// PutImported records what a source key became.
func (b *Batch) PutImported(sourceKey string, rec *storepb.ImportedRecord) error {
	return b.putProto(key(prefixImported, sourceKey), rec)
}

// AddPlaceholderUse records that a message names a placeholder.
func (b *Batch) AddPlaceholderUse(placeholderID, messageID string) error {
	return b.set(key(prefixPlaceholderUse, placeholderID, messageID), nil)
}

// DeletePlaceholderUse forgets one message of a placeholder's list.
func (b *Batch) DeletePlaceholderUse(placeholderID, messageID string) error {
	return b.delete(key(prefixPlaceholderUse, placeholderID, messageID))
}

// PlaceholderUses calls fn with up to limit message ids of a placeholder's list.
func (r *Reader) PlaceholderUses(placeholderID string, limit int, fn func(messageID string)) error {
	n := 0
	prefix := append(key(prefixPlaceholderUse, placeholderID), sep)
	return r.scan(prefix, nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		if n == limit {
			return false, nil
		}
		n++
		fn(string(k[len(prefix):]))
		return true, nil
	})
}

// Export reads an export's row; ErrNotFound if there is none.
func (r *Reader) Export(id string) (*storepb.ExportRecord, error) {
	rec := new(storepb.ExportRecord)
	if err := r.getProto(key(prefixExport, id), rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// Exports calls fn with every export row (there are few: they go a day after they are made).
func (r *Reader) Exports(fn func(*storepb.ExportRecord) error) error {
	return scanProto(r, []byte{prefixExport}, func() *storepb.ExportRecord { return new(storepb.ExportRecord) },
		func(_ []byte, rec *storepb.ExportRecord) error { return fn(rec) })
}

// PutExport writes an export's row.
func (b *Batch) PutExport(rec *storepb.ExportRecord) error {
	return b.putProto(key(prefixExport, rec.GetId()), rec)
}

// DeleteExport deletes an export's row.
func (b *Batch) DeleteExport(id string) error { return b.delete(key(prefixExport, id)) }
