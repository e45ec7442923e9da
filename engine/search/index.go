package search

import (
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// How the index keeps up with the messages, without a write of its own on the send path and
// without ever missing a committed message:
//
//  1. The writer stages an op (a message's terms come or go) in the same transaction as the
//     change to the message: one small row, 0xB1 op-number -> storepb.SearchOp. A message is
//     thus never committed without its op, and a crash loses neither.
//  2. After the commit, and before anyone hears of the change, the writer hands the ops to the
//     index (Committed), which keeps them in memory: a query reads them there at once.
//  3. A goroutine of the index folds the ops into the posting lists in batches (Backend.Apply,
//     which records the number of the last op it applied), deletes their rows, and only then
//     drops them from memory. At start, the ops above the recorded number are read back.
//
// A query takes the ops in memory first and the lists' snapshot second, so an op it does not
// find in memory was applied before its snapshot: every committed message is found. What the
// lists still hold of an edited or deleted message is harmless: the engine checks every
// candidate against the message as stored.

// Backend keeps the posting lists: Badger (badger.go). docs/search.md tells how it was chosen
// over bleve, which sat behind the same interface for the comparison.
type Backend interface {
	// Apply folds ops into the lists in order and records through as the last op applied.
	Apply(ops []*storepb.SearchOp, through uint64) error
	// Applied is the last op number Apply recorded.
	Applied() (uint64, error)
	// Candidates calls fn, newest first, with the documents of the visible channels that hold
	// every exact term and a term starting with each prefix (a prefix that stands for too
	// many terms may be left for fn's caller to check).
	Candidates(p Plan, visible func(channelID string) bool, fn func(doc int64, channelID string) bool) error
	Close() error
}

// Options tune the index; zero values take the defaults noted.
type Options struct {
	// ApplyAfter is how long ops wait to be applied together (default 500 ms), unless
	// ApplyAt of them are waiting (default 2,000).
	ApplyAfter time.Duration
	ApplyAt    int
	Log        *slog.Logger
}

// applyMax bounds the ops one Apply takes. Apply gathers their terms' changes in memory (some
// 30 a message): 2,048 ops hold some 5 MB while they are folded in, where 8,192 held 20 MB
// during an import. Fewer ops an Apply costs few more commits: its transactions are bounded
// by bytes (txnBytes), and a frequent term's newest chunk is rewritten once an Apply.
const applyMax = 2048

// Index is the message index of one database.
type Index struct {
	db   *store.DB
	be   Backend
	opts Options
	log  *slog.Logger

	// last is the writer's: the number of the last op it staged.
	last uint64

	mu  sync.Mutex
	mem []Staged // committed ops not yet applied, in order
	// applying serializes applyWaiting (the goroutine and Flush).
	applying sync.Mutex

	ready   atomic.Bool // the lists hold every message (built from the old ones when new)
	built   atomic.Int64
	wake    chan struct{}
	closing chan struct{}
	done    chan struct{}
	stop    sync.Once
}

// Staged is an op staged in a writer's transaction.
type Staged struct {
	N  uint64
	Op *storepb.SearchOp
}

func pendingKey(n uint64) []byte { return binary.BigEndian.AppendUint64([]byte{prefixPending}, n) }

// Open starts the index on a database: it reads back the ops not yet applied, builds the lists
// from the stored messages if the database has none yet (in the background: Ready reports when
// it is done), and starts applying.
func Open(db *store.DB, be Backend, opts Options) (*Index, error) {
	if opts.ApplyAfter == 0 {
		opts.ApplyAfter = 500 * time.Millisecond
	}
	if opts.ApplyAt == 0 {
		opts.ApplyAt = 2000
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	ix := &Index{db: db, be: be, opts: opts, log: opts.Log,
		wake: make(chan struct{}, 1), closing: make(chan struct{}), done: make(chan struct{})}
	applied, err := be.Applied()
	if err != nil {
		return nil, err
	}
	ix.last = applied
	var stale [][]byte
	built := false
	err = db.View(func(r *store.Reader) error {
		if _, err := r.SearchGet(metaKey("built")); err == nil {
			built = true
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		it := r.SearchIter([]byte{prefixPending}, false)
		defer it.Close()
		var v []byte
		for it.Seek(nil); it.Valid(); it.Next() {
			n := binary.BigEndian.Uint64(it.Key()[1:])
			if n <= applied {
				stale = append(stale, slices.Clone(it.Key()))
				continue
			}
			var err error
			if v, err = it.Value(v); err != nil {
				return err
			}
			op := new(storepb.SearchOp)
			if err := proto.Unmarshal(v, op); err != nil {
				return err
			}
			ix.mem = append(ix.mem, Staged{N: n, Op: op})
			ix.last = max(ix.last, n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := ix.deleteRows(stale); err != nil {
		return nil, err
	}
	if !built {
		// A database without messages (a new one) has nothing to build: ready at once.
		if built, err = ix.markBuiltIfEmpty(); err != nil {
			return nil, err
		}
	}
	ix.ready.Store(built)
	go ix.run(built)
	return ix, nil
}

// markBuiltIfEmpty records the lists as built when there is no message to index.
func (ix *Index) markBuiltIfEmpty() (bool, error) {
	empty := true
	err := ix.db.View(func(r *store.Reader) error {
		return r.MessagesAfter("", 1, func(*svcv1.Message) error {
			empty = false
			return nil
		})
	})
	if err != nil || !empty {
		return false, err
	}
	b := ix.db.NewBatch()
	defer b.Discard()
	if err := b.SearchSet(metaKey("built"), []byte{1}); err != nil {
		return false, err
	}
	return true, b.Commit()
}

// Stage writes an op into the writer's transaction. Only the writer calls it.
func (ix *Index) Stage(b *store.Batch, op *storepb.SearchOp) (Staged, error) {
	v, err := proto.Marshal(op)
	if err != nil {
		return Staged{}, err
	}
	ix.last++
	if err := b.SearchSet(pendingKey(ix.last), v); err != nil {
		return Staged{}, err
	}
	return Staged{N: ix.last, Op: op}, nil
}

// Committed takes the ops of a committed transaction: queries see them from now on.
func (ix *Index) Committed(ops []Staged) {
	if len(ops) == 0 {
		return
	}
	ix.mu.Lock()
	ix.mem = append(ix.mem, ops...)
	ix.mu.Unlock()
	select {
	case ix.wake <- struct{}{}:
	default:
	}
}

// Ready reports whether the lists hold every stored message: false only while a database
// that had messages before it had an index is being indexed.
func (ix *Index) Ready() bool { return ix.ready.Load() }

// Built is how many old messages the first build has indexed so far.
func (ix *Index) Built() int64 { return ix.built.Load() }

// Pending is how many ops wait to be applied.
func (ix *Index) Pending() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.mem)
}

// Flush applies every op waiting now.
func (ix *Index) Flush() error {
	for ix.Pending() > 0 {
		if err := ix.applyWaiting(); err != nil {
			return err
		}
	}
	return nil
}

// Close applies what is waiting and stops.
func (ix *Index) Close() error {
	ix.stop.Do(func() { close(ix.closing) })
	<-ix.done
	return ix.be.Close()
}

// run applies the waiting ops, in batches, until Close; first it builds the lists if needed.
func (ix *Index) run(built bool) {
	defer close(ix.done)
	for !built {
		err := ix.build()
		if err == nil {
			break
		}
		if errors.Is(err, errClosing) {
			return
		}
		// It goes on from where it stopped; searches answer unavailable meanwhile.
		ix.log.Error("building the search index; trying again in a minute", "err", err)
		select {
		case <-ix.closing:
			return
		case <-time.After(time.Minute):
		}
	}
	ix.ready.Store(true)
	retry := time.Duration(0)
	for {
		var again <-chan time.Time
		if retry > 0 {
			again = time.After(retry)
		}
		select {
		case <-ix.closing:
			for ix.Pending() > 0 {
				if err := ix.applyWaiting(); err != nil {
					ix.log.Error("applying search index ops at close", "err", err)
					return
				}
			}
			return
		case <-ix.wake:
		case <-again:
		}
		// Let ops gather, unless many already wait.
		if n := ix.Pending(); n > 0 && n < ix.opts.ApplyAt && retry == 0 {
			select {
			case <-time.After(ix.opts.ApplyAfter):
			case <-ix.closing:
			}
		}
		if err := ix.applyWaiting(); err != nil {
			ix.log.Error("applying search index ops", "err", err)
			retry = min(max(2*retry, time.Second), time.Minute)
			continue
		}
		retry = 0
		if ix.Pending() > 0 {
			select {
			case ix.wake <- struct{}{}:
			default:
			}
		}
	}
}

// applyWaiting applies up to applyMax waiting ops, deletes their rows and drops them from
// memory.
func (ix *Index) applyWaiting() error {
	ix.applying.Lock()
	defer ix.applying.Unlock()
	ix.mu.Lock()
	batch := ix.mem[:min(len(ix.mem), applyMax)]
	ix.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	ops := make([]*storepb.SearchOp, len(batch))
	keys := make([][]byte, len(batch))
	for i, s := range batch {
		ops[i], keys[i] = s.Op, pendingKey(s.N)
	}
	if err := ix.be.Apply(ops, batch[len(batch)-1].N); err != nil {
		return err
	}
	ix.mu.Lock()
	ix.mem = slices.Clone(ix.mem[len(batch):])
	ix.mu.Unlock()
	// Rows left behind by a crash here are at or below the applied number: Open deletes them.
	return ix.deleteRows(keys)
}

func (ix *Index) deleteRows(keys [][]byte) error {
	for len(keys) > 0 {
		n := min(len(keys), txnEntries)
		b := ix.db.NewBatch()
		for _, k := range keys[:n] {
			if err := b.SearchDelete(k); err != nil {
				b.Discard()
				return err
			}
		}
		err := b.Commit()
		b.Discard()
		if err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

var errClosing = errors.New("the index is closing")

// buildChunk is how many messages one step of the first build reads.
const buildChunk = 2000

// build indexes the stored messages of a database that has no index yet, resuming where a
// previous run stopped. Ops committed meanwhile wait in memory and are applied afterwards:
// applying an op again over a state that already includes it ends in the same lists, so the
// lists end up right whatever the build read before or after them.
func (ix *Index) build() error {
	applied, err := ix.be.Applied()
	if err != nil {
		return err
	}
	var after string
	err = ix.db.View(func(r *store.Reader) error {
		v, err := r.SearchGet(metaKey("build-after"))
		if err == nil {
			after = string(v)
		}
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	for {
		select {
		case <-ix.closing:
			return errClosing
		default:
		}
		var ops []*storepb.SearchOp
		n := 0
		err := ix.db.View(func(r *store.Reader) error {
			return r.MessagesAfter(after, buildChunk, func(m *svcv1.Message) error {
				n++
				after = m.GetId()
				if op := AddOp(m); op != nil {
					ops = append(ops, op)
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		if len(ops) > 0 {
			if err := ix.be.Apply(ops, applied); err != nil {
				return err
			}
		}
		ix.built.Add(int64(n))
		b := ix.db.NewBatch()
		key, val := metaKey("build-after"), []byte(after)
		if n < buildChunk {
			key, val = metaKey("built"), []byte{1}
			if err := b.SearchDelete(metaKey("build-after")); err != nil {
				b.Discard()
				return err
			}
		}
		if err := b.SearchSet(key, val); err != nil {
			b.Discard()
			return err
		}
		err = b.Commit()
		b.Discard()
		if err != nil || n < buildChunk {
			return err
		}
	}
}

// AddOp is the op that indexes a message as it is stored (nil for a deleted one).
func AddOp(m *svcv1.Message) *storepb.SearchOp {
	if m.GetDeleted() {
		return nil
	}
	return DocOp(m, Analyze(m.GetText(), Fields(m)))
}

// DocOp is the op that indexes message m as d (the analysis of its text and Fields), with its
// filter terms.
func DocOp(m *svcv1.Message, d Doc) *storepb.SearchOp {
	d = withFilterTerms(d, m)
	return &storepb.SearchOp{Doc: m.GetCreatedSeq(), ChannelId: m.GetChannelId(), Terms: d.Terms, Masks: d.Masks, AtMs: m.GetCreatedAtMs()}
}

// RemoveOp is the op that takes a message's terms out of the index.
func RemoveOp(m *svcv1.Message) *storepb.SearchOp {
	return &storepb.SearchOp{Doc: m.GetCreatedSeq(), ChannelId: m.GetChannelId(), Remove: true, Terms: withFilterTerms(Analyze(m.GetText(), Fields(m)), m).Terms}
}

// HasFields reports a message with more to analyze than its text (Fields): its op is made
// in the writer, where the stored message is.
func HasFields(m *svcv1.Message) bool { return len(m.GetAttachments()) > 0 || m.GetPoll() != nil }

// UndoOp is the op that takes out what add put in: RemoveOp of the message add indexed,
// without analyzing its text again (nil for nil).
func UndoOp(add *storepb.SearchOp) *storepb.SearchOp {
	if add == nil {
		return nil
	}
	return &storepb.SearchOp{Doc: add.GetDoc(), ChannelId: add.GetChannelId(), Remove: true, Terms: add.GetTerms()}
}

// FileNames are the names of a message's attachments.
func FileNames(m *svcv1.Message) []string {
	if len(m.GetAttachments()) == 0 {
		return nil
	}
	out := make([]string, len(m.GetAttachments()))
	for i, a := range m.GetAttachments() {
		out[i] = a.GetName()
	}
	return out
}

// Candidates calls fn with the documents that may answer q in the visible channels, newest
// first, each once, until fn returns false. Every committed message that answers q is among
// them; so may be others (an edit's old words): fn's caller checks each.
func (ix *Index) Candidates(ctx context.Context, q *Query, visible func(channelID string) bool, fn func(doc int64, channelID string) bool) error {
	return ix.candidates(ctx, ix.memSnapshot(), q, visible, fn)
}

// memSnapshot is the ops in memory now. Taken before the lists' snapshot (see above).
func (ix *Index) memSnapshot() []Staged {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.mem[:len(ix.mem):len(ix.mem)]
}

func (ix *Index) candidates(ctx context.Context, mem []Staged, q *Query, visible func(channelID string) bool, fn func(doc int64, channelID string) bool) error {
	plan := q.Plan()
	type cand struct {
		doc int64
		ch  string
	}
	var fresh []cand
	for _, s := range mem {
		op := s.Op
		if !op.GetRemove() && visible(op.GetChannelId()) && plan.holds(op) {
			fresh = append(fresh, cand{op.GetDoc(), op.GetChannelId()})
		}
	}
	sort.Slice(fresh, func(i, j int) bool { return fresh[i].doc > fresh[j].doc })
	stopped := false
	emit := func(doc int64, ch string) bool {
		if ctx.Err() != nil || !fn(doc, ch) {
			stopped = true
		}
		return !stopped
	}
	var last int64 = -1
	err := ix.be.Candidates(plan, visible, func(doc int64, ch string) bool {
		for len(fresh) > 0 && fresh[0].doc >= doc {
			c := fresh[0]
			fresh = fresh[1:]
			if c.doc != last {
				last = c.doc
				if !emit(c.doc, c.ch) {
					return false
				}
			}
		}
		if doc == last {
			return true
		}
		last = doc
		return emit(doc, ch)
	})
	if err != nil {
		return err
	}
	for _, c := range fresh {
		if stopped {
			break
		}
		if c.doc != last {
			last = c.doc
			emit(c.doc, c.ch)
		}
	}
	return ctx.Err()
}

// holds reports whether an op that adds a document holds every exact and filter term, a term
// starting with each prefix and one of each group of AnyOf, in the plan's days.
func (p *Plan) holds(op *storepb.SearchOp) bool {
	terms := op.GetTerms()
	has := func(t string) bool {
		_, ok := slices.BinarySearch(terms, t)
		return ok
	}
	if !slices.ContainsFunc(p.AnyOf, func(g []string) bool { return !slices.ContainsFunc(g, has) }) &&
		!slices.ContainsFunc(p.Filters, func(t string) bool { return !has(t) }) &&
		(p.AfterMs == 0 || op.GetAtMs() >= p.AfterMs) && (p.BeforeMs == 0 || op.GetAtMs() < p.BeforeMs) {
		return holdsWords(terms, p.Exact, p.Prefixes)
	}
	return false
}

// holdsWords reports whether sorted terms hold every exact term and a term starting with each
// prefix.
func holdsWords(terms, exact, prefixes []string) bool {
	for _, t := range exact {
		if _, ok := slices.BinarySearch(terms, t); !ok {
			return false
		}
	}
	for _, p := range prefixes {
		i, _ := slices.BinarySearch(terms, p)
		if i == len(terms) || !strings.HasPrefix(terms[i], p) {
			return false
		}
	}
	return true
}

// ExamineMax bounds the candidates one search reads: a query whose words are everywhere but
// whose phrase or prefix is rare answers with the matches among the newest candidates rather
// than read the whole history.
const ExamineMax = 20_000

// Find returns up to limit messages that answer q, in the visible channels, newest first: each
// candidate is read as stored now and kept only if it is not deleted, not past retention
// (created before cutoffMs; a reply by its root's age) and answers q by its current text and
// file names.
func (ix *Index) Find(ctx context.Context, q *Query, visible func(channelID string) bool, cutoffMs int64, limit int) ([]*svcv1.Message, error) {
	var out []*svcv1.Message
	mem := ix.memSnapshot()
	err := ix.db.View(func(r *store.Reader) error {
		examined := 0
		var cerr error
		err := ix.candidates(ctx, mem, q, visible, func(doc int64, ch string) bool {
			examined++
			m, err := check(r, q, doc, ch, cutoffMs)
			if err != nil {
				cerr = err
				return false
			}
			if m != nil {
				out = append(out, m)
			}
			return len(out) < limit && examined < ExamineMax
		})
		if cerr != nil {
			return cerr
		}
		return err
	})
	return out, err
}

// check reads a candidate: the message if it answers q, nil if not.
func check(r *store.Reader, q *Query, doc int64, channelID string, cutoffMs int64) (*svcv1.Message, error) {
	e, err := r.Entry(channelID, doc)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if e.GetDeletedSeq() > 0 || e.GetCreatedAtMs() < cutoffMs || e.GetThreadReply() && e.GetRootCreatedAtMs() < cutoffMs {
		return nil, nil
	}
	m, err := r.Message(e.GetMessageId())
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil || m.GetDeleted() || !q.Match(m.GetText(), Fields(m)) {
		return nil, err
	}
	if ok, err := q.Filter.matches(r, m, e); !ok || err != nil {
		return nil, err
	}
	return m, nil
}

// Drop deletes the whole index (every row under 0xB0-0xB3) of a closed engine's database: the
// next start builds it again from the messages, as for a database from before search existed.
func Drop(db *store.DB) error {
	for _, p := range []byte{prefixMeta, prefixPending, prefixChunk, prefixChannel} {
		var keys [][]byte
		err := db.View(func(r *store.Reader) error {
			it := r.SearchIter([]byte{p}, false)
			defer it.Close()
			for it.Seek(nil); it.Valid(); it.Next() {
				keys = append(keys, slices.Clone(it.Key()))
			}
			return nil
		})
		if err != nil {
			return err
		}
		ix := &Index{db: db}
		if err := ix.deleteRows(keys); err != nil {
			return err
		}
	}
	return nil
}
