package search

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// Rows of the index (see engine/store's doc for the whole key space).
const (
	prefixMeta    byte = 0xB0 // name -> value
	prefixPending byte = 0xB1 // op number (8 bytes) -> storepb.SearchOp not yet in the lists
	prefixChunk   byte = 0xB2 // term 0x00 first doc -> postings (postings.go)
	prefixChannel byte = 0xB3 // channel id -> ordinal (4 bytes)
)

func metaKey(name string) []byte { return append([]byte{prefixMeta}, name...) }

// allDocs is the term every document holds: what a query walks when none of its own terms can
// lead (a one-letter prefix).
const allDocs = ""

// prefixTermsMax is the most terms a prefix is expanded to. A prefix of more terms is frequent
// enough that walking the other terms (or every document) and checking the prefix on each
// candidate finds the newest matches sooner than merging that many lists.
const prefixTermsMax = 128

// txnBytes and txnEntries bound what one transaction of Apply writes, well inside Badger's
// limits for the small memory profile (15% of its 8 MB memtable).
const (
	txnBytes   = 512 << 10
	txnEntries = 4000
)

// Badger keeps the posting lists in the community's database.
type Badger struct {
	db   *store.DB
	mu   sync.Mutex // Apply
	ords atomic.Pointer[ordinals]
}

// ordinals numbers the channels, so that a posting names its channel in a byte or two.
// Published copies are never changed.
type ordinals struct {
	byID map[string]uint32
	ids  []string // by ordinal
}

// OpenBadger loads the channel ordinals.
func OpenBadger(db *store.DB) (*Badger, error) {
	b := &Badger{db: db}
	o := &ordinals{byID: map[string]uint32{}}
	err := db.View(func(r *store.Reader) error {
		it := r.SearchIter([]byte{prefixChannel}, false)
		defer it.Close()
		var v []byte
		for it.Seek(nil); it.Valid(); it.Next() {
			var err error
			if v, err = it.Value(v); err != nil {
				return err
			}
			if len(v) != 4 {
				return errBadChunk
			}
			id, ord := string(it.Key()[1:]), binary.BigEndian.Uint32(v)
			o.byID[id] = ord
			for uint32(len(o.ids)) <= ord {
				o.ids = append(o.ids, "")
			}
			o.ids[ord] = id
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.ords.Store(o)
	return b, nil
}

// Applied is the number of the last op folded into the lists.
func (b *Badger) Applied() (uint64, error) {
	var n uint64
	err := b.db.View(func(r *store.Reader) error {
		v, err := r.SearchGet(metaKey("applied"))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err == nil && len(v) == 8 {
			n = binary.BigEndian.Uint64(v)
		}
		return err
	})
	return n, err
}

// change is one term's change for one document.
type change struct {
	doc  int64
	ord  uint32
	mask uint32
	add  bool
}

// Apply folds ops into the posting lists, in order, and records through as applied with the
// last of its transactions. Each op says whether a document holds a term, so applying an op
// again ends in the same lists: after a crash part-way, the ops are simply applied again.
func (b *Badger) Apply(ops []*storepb.SearchOp, through uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	ords := b.ords.Load()
	var added map[string]uint32
	ordOf := func(id string) uint32 {
		if o, ok := ords.byID[id]; ok {
			return o
		}
		if o, ok := added[id]; ok {
			return o
		}
		if added == nil {
			added = map[string]uint32{}
		}
		o := uint32(len(ords.ids) + len(added))
		added[id] = o
		return o
	}
	// Per term, the last op on each document wins.
	byTerm := map[string]map[int64]change{}
	note := func(term string, c change) {
		m := byTerm[term]
		if m == nil {
			m = map[int64]change{}
			byTerm[term] = m
		}
		m[c.doc] = c
	}
	days := dayBounds(ops)
	for _, op := range ops {
		c := change{doc: op.GetDoc(), ord: ordOf(op.GetChannelId()), add: !op.GetRemove()}
		note(allDocs, c)
		masks := op.GetMasks()
		for i, t := range op.GetTerms() {
			c.mask = 0
			if i < len(masks) {
				c.mask = masks[i]
			}
			note(t, c)
		}
	}
	if len(added) > 0 {
		// The new ordinals are stored and published first, so that no posting ever names a
		// channel the index does not know, whatever fails afterwards.
		w := &chunkWriter{db: b.db}
		w.begin()
		for id, o := range added {
			if err := w.set(channelKey(id), binary.BigEndian.AppendUint32(nil, o)); err != nil {
				w.discard()
				return err
			}
		}
		if err := w.commit(); err != nil {
			return err
		}
		next := &ordinals{byID: maps.Clone(ords.byID), ids: slices.Clone(ords.ids)}
		for id, o := range added {
			next.byID[id] = o
			for uint32(len(next.ids)) <= o {
				next.ids = append(next.ids, "")
			}
			next.ids[o] = id
		}
		b.ords.Store(next)
	}
	changesOf := func(term string) []change {
		m := byTerm[term]
		cs := make([]change, 0, len(m))
		for _, c := range m {
			cs = append(cs, c)
		}
		slices.SortFunc(cs, func(a, b change) int { return cmpInt(a.doc, b.doc) })
		return cs
	}
	w := &chunkWriter{db: b.db}
	defer w.discard()
	w.begin()
	var inTxn []string // the terms the open transaction changed
	for _, term := range slices.Sorted(maps.Keys(byTerm)) {
		if w.full() {
			if err := w.commit(); err != nil {
				return err
			}
			w.begin()
			inTxn = inTxn[:0]
		}
		err := w.applyTerm(term, changesOf(term))
		if errors.Is(err, store.ErrTooBig) && len(inTxn) > 0 {
			// The transaction holds part of this term: drop it, store the terms before this
			// one, and give this one a transaction of its own.
			w.discard()
			w.begin()
			for _, t := range inTxn {
				if err := w.applyTerm(t, changesOf(t)); err != nil {
					return err
				}
			}
			if err := w.commit(); err != nil {
				return err
			}
			w.begin()
			inTxn = inTxn[:0]
			err = w.applyTerm(term, changesOf(term))
		}
		if err != nil {
			return err
		}
		inTxn = append(inTxn, term)
	}
	if err := w.days(days); err != nil {
		return err
	}
	if err := w.set(metaKey("applied"), binary.BigEndian.AppendUint64(nil, through)); err != nil {
		return err
	}
	return w.commit()
}

func channelKey(id string) []byte { return append([]byte{prefixChannel}, id...) }

// chunkWriter rewrites chunks in a run of transactions.
type chunkWriter struct {
	db             *store.DB
	b              *store.Batch
	it             *store.SearchIter
	bytes, entries int
	buf            []posting
	raw            []byte
}

// full reports a transaction that should be committed before it takes another term.
func (w *chunkWriter) full() bool { return w.bytes > txnBytes || w.entries > txnEntries }

func (w *chunkWriter) begin() {
	w.b = w.db.NewBatch()
	w.it = w.b.SearchIter([]byte{prefixChunk}, true)
	w.bytes, w.entries = 0, 0
}

func (w *chunkWriter) discard() {
	if w.it != nil {
		w.it.Close()
		w.it = nil
	}
	if w.b != nil {
		w.b.Discard()
		w.b = nil
	}
}

func (w *chunkWriter) commit() error {
	if w.it != nil {
		w.it.Close()
		w.it = nil
	}
	err := w.b.Commit()
	w.b.Discard()
	w.b = nil
	return err
}

func (w *chunkWriter) set(k, v []byte) error {
	w.bytes += len(k) + len(v) + 32
	w.entries++
	return w.b.SearchSet(k, v)
}

func (w *chunkWriter) del(k []byte) error {
	w.bytes += len(k) + 32
	w.entries++
	return w.b.SearchDelete(k)
}

// applyTerm applies one term's changes (in doc order, one per doc) to its chunks: from the
// newest, each chunk takes the changes at or above its first doc; changes below every chunk
// start new chunks.
func (w *chunkWriter) applyTerm(term string, cs []change) error {
	prefix := chunkPrefix(term)
	for len(cs) > 0 {
		last := cs[len(cs)-1].doc
		w.it.Seek(chunkKey(term, last))
		if !w.it.Valid() || !bytes.HasPrefix(w.it.Key(), prefix) {
			// Nothing at or below these docs: new chunks for what is added.
			var adds []posting
			for _, c := range cs {
				if c.add {
					adds = append(adds, posting{c.doc, c.ord, c.mask})
				}
			}
			return w.writeChunks(term, -1, nil, adds)
		}
		first := chunkFirst(w.it.Key())
		var err error
		if w.raw, err = w.it.Value(w.raw); err != nil {
			return err
		}
		old, err := decodeChunk(w.buf[:0], first, w.raw)
		if err != nil {
			return err
		}
		w.buf = old
		i, _ := slices.BinarySearchFunc(cs, first, func(c change, d int64) int { return cmpInt(c.doc, d) })
		merged := mergeChanges(old, cs[i:])
		if err := w.writeChunks(term, first, old, merged); err != nil {
			return err
		}
		cs = cs[:i]
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mergeChanges applies changes (in doc order) to a chunk's postings (in doc order).
func mergeChanges(old []posting, cs []change) []posting {
	out := make([]posting, 0, len(old)+len(cs))
	i := 0
	for _, c := range cs {
		for i < len(old) && old[i].doc < c.doc {
			out = append(out, old[i])
			i++
		}
		if i < len(old) && old[i].doc == c.doc {
			i++
		}
		if c.add {
			out = append(out, posting{c.doc, c.ord, c.mask})
		}
	}
	return append(out, old[i:]...)
}

// writeChunks replaces the chunk that started at first (none when first < 0) with postings,
// cut into chunks of chunkMax; the piece that keeps the old first doc keeps its row, and is
// not written again when it did not change.
func (w *chunkWriter) writeChunks(term string, first int64, old, ps []posting) error {
	if first >= 0 && (len(ps) == 0 || ps[0].doc != first) {
		if err := w.del(chunkKey(term, first)); err != nil {
			return err
		}
	}
	for len(ps) > 0 {
		n := min(len(ps), chunkMax)
		piece := ps[:n]
		ps = ps[n:]
		if piece[0].doc == first && slices.Equal(piece, old) {
			continue
		}
		w.raw = encodeChunk(w.raw[:0], piece)
		if err := w.set(chunkKey(term, piece[0].doc), slices.Clone(w.raw)); err != nil {
			return err
		}
	}
	return nil
}

// Candidates calls fn with the documents in visible channels that hold every exact term and,
// for each prefix, a term that starts with it, newest first. A prefix of more than
// prefixTermsMax terms is not used to find them: fn's caller checks it on each candidate.
func (b *Badger) Candidates(plan Plan, visible func(channelID string) bool, fn func(doc int64, channelID string) bool) error {
	exact, prefixes := plan.Exact, plan.Prefixes
	ords := b.ords.Load()
	see := make([]bool, len(ords.ids))
	seesAny := false
	for o, id := range ords.ids {
		if id != "" && visible(id) {
			see[o], seesAny = true, true
		}
	}
	if !seesAny {
		return nil
	}
	return b.db.View(func(r *store.Reader) error {
		var its []docIter
		defer func() {
			for _, it := range its {
				it.close()
			}
		}()
		for _, t := range exact {
			its = append(its, newTermIter(r, t))
		}
		for _, s := range plan.Stems {
			its = append(its, newTermIter(r, s))
		}
		for _, s := range plan.Pairs {
			its = append(its, newTermIter(r, s))
		}
		for _, s := range plan.Filters {
			its = append(its, newTermIter(r, s))
		}
		for _, g := range plan.AnyOf {
			tis := make([]*termIter, len(g))
			for i, t := range g {
				tis[i] = newTermIter(r, t)
			}
			its = append(its, newUnionIter(tis))
		}
		lo, hi, any, err := docRange(r, &plan)
		if err != nil || !any {
			return err
		}
		for _, p := range prefixes {
			if s, ok := Stem(p); ok && len(s) == len(p)+1 {
				continue // the stem is the prefix itself
			}
			terms, many, err := expand(r, p)
			if err != nil {
				return err
			}
			if many {
				continue
			}
			if len(terms) == 0 {
				return nil
			}
			tis := make([]*termIter, len(terms))
			for i, t := range terms {
				tis[i] = newTermIter(r, t)
			}
			its = append(its, newUnionIter(tis))
		}
		if len(its) == 0 {
			its = append(its, newTermIter(r, allDocs))
		}
		masks := make([]uint32, len(exact))
		exactIts := slices.Clone(its[:len(exact)])
		// The sparsest lists first: the intersection then seeks in a dense list only for the
		// documents the sparser ones agree on (a filter with a common word, a rare prefix after
		// a common word).
		leading := slices.Clone(its)
		slices.SortStableFunc(leading, func(a, b docIter) int { return cmp.Compare(a.density(), b.density()) })
		return conjunction(leading, lo, hi, func(p posting) bool {
			if int(p.ord) >= len(see) || !see[p.ord] {
				return true
			}
			if len(plan.Phrases) > 0 {
				for i, it := range exactIts {
					masks[i] = it.cur().mask
				}
				if !plan.aligned(masks) {
					return true
				}
			}
			return fn(p.doc, ords.ids[p.ord])
		})
	})
}

// expand lists the terms that start with prefix, or reports that there are more than
// prefixTermsMax.
func expand(r *store.Reader, prefix string) (terms []string, many bool, err error) {
	p := append([]byte{prefixChunk}, prefix...)
	it := r.SearchIter(p, false)
	defer it.Close()
	it.Seek(nil)
	for it.Valid() {
		term := chunkTerm(it.Key())
		if len(terms) == prefixTermsMax {
			return nil, true, nil
		}
		terms = append(terms, term)
		// Past the term's other chunks.
		it.Seek(append(append([]byte{prefixChunk}, term...), 1))
	}
	return terms, false, nil
}

// Close does nothing: the lists live in the database.
func (b *Badger) Close() error { return nil }

// Count reads every list and counts the documents each term is in (the term every document
// holds left out): a tool for tests and for looking at a database by hand.
func (b *Badger) Count() (map[string]int, error) {
	out := map[string]int{}
	err := b.db.View(func(r *store.Reader) error {
		it := r.SearchIter([]byte{prefixChunk}, false)
		defer it.Close()
		var raw []byte
		var ps []posting
		for it.Seek(nil); it.Valid(); it.Next() {
			term := chunkTerm(it.Key())
			var err error
			if raw, err = it.Value(raw); err != nil {
				return err
			}
			if ps, err = decodeChunk(ps[:0], chunkFirst(it.Key()), raw); err != nil {
				return err
			}
			if term != allDocs {
				out[term] += len(ps)
			}
		}
		return nil
	})
	return out, err
}
