package search

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"sort"

	"hearth/engine/store"
)

// A posting list is the documents (messages, by created_seq) that hold a term, each with the
// ordinal of its channel, so that a query drops the channels its caller cannot see without
// reading anything else. A list is cut into chunks of at most chunkMax postings, each one row:
//
//	0xB2 term 0x00 first-doc (8 bytes, big-endian)  ->  version byte, count, then per posting
//	                                                    the doc's distance from the previous
//	                                                    one, the channel ordinal and the
//	                                                    positions mask (uvarints)
//
// Chunks of a term cover disjoint ranges of docs, so the newest postings are in the row with
// the greatest key, and a reverse seek to (term, doc) finds the chunk that holds doc.

// chunkMax is the most postings a chunk holds: large enough that a frequent term costs few
// rows, small enough that rewriting the newest chunk of a term when new messages arrive stays
// cheap.
const chunkMax = 128

const chunkVersion = 2

type posting struct {
	doc  int64
	ord  uint32
	mask uint32 // the term's positions in the document, modulo 32 (see storepb.SearchOp)
}

func chunkPrefix(term string) []byte {
	k := make([]byte, 0, 2+len(term)+8)
	k = append(k, prefixChunk)
	k = append(k, term...)
	return append(k, 0)
}

func chunkKey(term string, first int64) []byte {
	return binary.BigEndian.AppendUint64(chunkPrefix(term), uint64(first))
}

// chunkTerm is the term of a chunk key.
func chunkTerm(k []byte) string { return string(k[1 : len(k)-9]) }

func chunkFirst(k []byte) int64 { return int64(binary.BigEndian.Uint64(k[len(k)-8:])) }

var errBadChunk = errors.New("search: a posting chunk does not decode")

func encodeChunk(dst []byte, ps []posting) []byte {
	dst = append(dst, chunkVersion)
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	prev := ps[0].doc
	for _, p := range ps {
		dst = binary.AppendUvarint(dst, uint64(p.doc-prev))
		dst = binary.AppendUvarint(dst, uint64(p.ord))
		dst = binary.AppendUvarint(dst, uint64(p.mask))
		prev = p.doc
	}
	return dst
}

// decodeChunk appends the postings of a chunk whose first doc is first to dst, in doc order.
func decodeChunk(dst []posting, first int64, b []byte) ([]posting, error) {
	if len(b) < 2 || b[0] != chunkVersion {
		return nil, errBadChunk
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n > 1<<20 {
		return nil, errBadChunk
	}
	b = b[1+k:]
	doc := first
	for range n {
		d, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return nil, errBadChunk
		}
		o, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 {
			return nil, errBadChunk
		}
		m, k3 := binary.Uvarint(b[k1+k2:])
		if k3 <= 0 {
			return nil, errBadChunk
		}
		b = b[k1+k2+k3:]
		doc += int64(d)
		dst = append(dst, posting{doc: doc, ord: uint32(o), mask: uint32(m)})
	}
	return dst, nil
}

// docIter walks documents newest first.
type docIter interface {
	valid() bool
	cur() posting
	next()
	// seek moves to the newest document at or below doc (never forward).
	seek(doc int64)
	error() error
	close()
	// density estimates the share of documents the list holds, from its newest chunk: the
	// intersection walks the sparsest first.
	density() float64
}

// termIter walks one term's posting list, newest first, a chunk at a time.
type termIter struct {
	term  string
	it    *store.SearchIter
	chunk []posting // the current chunk, in doc order
	i     int       // the current posting in chunk
	raw   []byte
	done  bool
	err   error
	dens  float64
}

func newTermIter(r *store.Reader, term string) *termIter {
	t := &termIter{term: term, it: r.SearchIter(chunkPrefix(term), true)}
	t.it.Seek(nil)
	t.load()
	if !t.done {
		// The postings of the newest chunk over the documents it spans: a chunk of a frequent
		// term spans few, a rare term's many. A lone posting counts as dense, which costs
		// little: a short list ends the intersection soon wherever it stands.
		t.dens = float64(len(t.chunk)) / float64(t.chunk[len(t.chunk)-1].doc-t.chunk[0].doc+1)
	}
	return t
}

// load reads the chunk the iterator is on and stands at its newest posting.
func (t *termIter) load() {
	for {
		if !t.it.Valid() {
			t.done = true
			return
		}
		var err error
		t.raw, err = t.it.Value(t.raw)
		if err == nil {
			t.chunk, err = decodeChunk(t.chunk[:0], chunkFirst(t.it.Key()), t.raw)
		}
		if err != nil {
			t.err, t.done = err, true
			return
		}
		if len(t.chunk) > 0 {
			t.i = len(t.chunk) - 1
			return
		}
		t.it.Next()
	}
}

func (t *termIter) valid() bool      { return !t.done }
func (t *termIter) density() float64 { return t.dens }
func (t *termIter) cur() posting     { return t.chunk[t.i] }
func (t *termIter) error() error     { return t.err }
func (t *termIter) close()           { t.it.Close() }

func (t *termIter) next() {
	if t.i > 0 {
		t.i--
		return
	}
	t.it.Next()
	t.load()
}

func (t *termIter) seek(doc int64) {
	if t.done || t.chunk[t.i].doc <= doc {
		return
	}
	if t.chunk[0].doc > doc {
		// The next older chunk first (a step, cheaper than a seek); a seek when the doc is
		// further back.
		t.it.Next()
		t.load()
		if !t.done && t.chunk[0].doc > doc {
			t.it.Seek(chunkKey(t.term, doc))
			t.load()
		}
		if t.done {
			return
		}
	}
	// The newest posting at or below doc in this chunk (its first is at or below doc).
	t.i = sort.Search(len(t.chunk), func(i int) bool { return t.chunk[i].doc > doc }) - 1
	if t.i < 0 {
		t.next()
	}
}

// unionIter walks the documents that hold any of several terms (a prefix's terms), newest
// first, each once.
type unionIter struct {
	its []*termIter // a heap: the newest current document on top
	err error
}

func newUnionIter(its []*termIter) *unionIter {
	u := &unionIter{}
	for _, it := range its {
		u.keep(it)
	}
	heap.Init(u)
	return u
}

// keep adds an iterator to the heap's slice if it has documents left, else closes it.
func (u *unionIter) keep(it *termIter) {
	if it.valid() {
		u.its = append(u.its, it)
		return
	}
	if it.err != nil && u.err == nil {
		u.err = it.err
	}
	it.close()
}

func (u *unionIter) Len() int           { return len(u.its) }
func (u *unionIter) Less(i, j int) bool { return u.its[i].cur().doc > u.its[j].cur().doc }
func (u *unionIter) Swap(i, j int)      { u.its[i], u.its[j] = u.its[j], u.its[i] }
func (u *unionIter) Push(x any)         { u.its = append(u.its, x.(*termIter)) }
func (u *unionIter) Pop() any {
	it := u.its[len(u.its)-1]
	u.its = u.its[:len(u.its)-1]
	return it
}

func (u *unionIter) valid() bool { return len(u.its) > 0 && u.err == nil }

func (u *unionIter) density() float64 {
	d := 0.0
	for _, it := range u.its {
		d += it.dens
	}
	return d
}
func (u *unionIter) cur() posting { return u.its[0].cur() }
func (u *unionIter) error() error { return u.err }

func (u *unionIter) close() {
	for _, it := range u.its {
		it.close()
	}
	u.its = nil
}

// next moves every term past the current document.
func (u *unionIter) next() { u.seek(u.cur().doc - 1) }

func (u *unionIter) seek(doc int64) {
	for len(u.its) > 0 && u.its[0].cur().doc > doc {
		it := u.its[0]
		it.seek(doc)
		if it.valid() {
			heap.Fix(u, 0)
			continue
		}
		heap.Pop(u)
		u.keep(it)
	}
}

// conjunction calls fn with the documents lo <= doc < hi that every iterator holds, newest
// first, until fn returns false or one runs out; fn reads the iterators' current postings.
func conjunction(its []docIter, lo, hi int64, fn func(posting) bool) error {
	for _, it := range its {
		if !it.valid() {
			return it.error()
		}
	}
	its[0].seek(hi - 1)
	if !its[0].valid() {
		return its[0].error()
	}
	target := its[0].cur().doc
	for {
		if target < lo {
			return nil
		}
		agreed := true
		for _, it := range its {
			it.seek(target)
			if !it.valid() {
				return it.error()
			}
			if d := it.cur().doc; d != target {
				target, agreed = d, false
				break
			}
		}
		if !agreed {
			continue
		}
		if !fn(its[0].cur()) {
			return nil
		}
		its[0].next()
		if !its[0].valid() {
			return its[0].error()
		}
		target = its[0].cur().doc
	}
}
