package search

import (
	"errors"

	"hearth/engine/store"
)

// AnalyzerVersion numbers the analyzer (Tokens, Analyze): the terms it makes for a text. The
// lists hold the terms of the version that indexed them, and a query is analyzed by the
// version running now, so a change to the terms of any text must bump it: a database indexed by
// another version is indexed again at the next start (RebuildIfOutdated).
//
//	1: the first analyzer (no version stored)
//	2: half-width voicing marks join their kana (ｶﾞ is ガ)
//	3: the filter terms (author, channel, files, images, links, pins, mentions), the first
//	   document of each day, and a poll's question and options as fields of its message
//	4: the days as ranges that hold for imported history too (days.go: the lowest document of a
//	   day and the days after it, the highest of a day and the days before it)
const AnalyzerVersion = 4

// RebuildIfOutdated drops the index of a database whose lists were made by another version of
// the analyzer, so that Open builds it again from the stored messages (in the background, as
// for a database from before search existed), and records the version running now. It runs
// before OpenBadger and Open, on a database nothing else writes yet. A database without a
// version has the first analyzer's lists, or none. A crash part-way drops again at the next
// start: the version is recorded only once the drop is done. dropped reports that there was
// an index (built or being built) to drop.
func RebuildIfOutdated(db *store.DB) (dropped bool, err error) {
	var stored byte = 1
	err = db.View(func(r *store.Reader) error {
		v, err := r.SearchGet(metaKey("analyzer"))
		if err == nil && len(v) == 1 {
			stored = v[0]
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		for _, name := range []string{"built", "build-after", "applied"} {
			_, err := r.SearchGet(metaKey(name))
			if err == nil {
				dropped = true
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		return nil
	})
	if err != nil || stored == AnalyzerVersion {
		return false, err
	}
	if err := Drop(db); err != nil {
		return false, err
	}
	b := db.NewBatch()
	defer b.Discard()
	if err := b.SearchSet(metaKey("analyzer"), []byte{AnalyzerVersion}); err != nil {
		return false, err
	}
	return dropped, b.Commit()
}
