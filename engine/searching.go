package engine

import (
	"context"
	"errors"
	"slices"

	"hearth/engine/search"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Search, and how the message index keeps in step with the messages. Every change to what a
// message says (sent, edited, deleted, purged) stages an op for the index in the same
// transaction (engine/search explains the rest), so a committed message is never missing from
// the index, a crash included, and the send path pays only for analyzing its text (on the
// caller's goroutine) and one small row.

// Search limits (API.md: default 20, max 100).
const (
	searchLimitDef = 20
	searchLimitMax = 100
)

// openSearch opens the index on the engine's database.
func (e *Engine) openSearch() error {
	// Lists made by another version of the analyzer would miss what a query now asks for.
	dropped, err := search.RebuildIfOutdated(e.db)
	if err != nil {
		return err
	}
	if dropped {
		e.log.Info("the message index was made by another version of the analyzer: building it again in the background", "analyzer", search.AnalyzerVersion)
	}
	if e.lists, err = search.OpenBadger(e.db); err != nil {
		return err
	}
	e.index, err = search.Open(e.db, e.lists, search.Options{Log: e.log})
	return err
}

// SearchIndexTerms applies what waits and counts the messages the index lists under each
// term: a tool for tests and for checking a database by hand (it reads the whole index).
func (e *Engine) SearchIndexTerms() (map[string]int, error) {
	if err := e.index.Flush(); err != nil {
		return nil, err
	}
	return e.lists.Count()
}

// Search finds the messages the caller can see that answer a query, newest first.
func (e *Engine) Search(ctx context.Context, c Caller, req *svcv1.SearchRequest) (*svcv1.SearchResponse, error) {
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = searchLimitDef
	}
	if limit < 1 || limit > searchLimitMax {
		return nil, invalid("limit must be 1 to %d; got %d", searchLimitMax, req.GetLimit())
	}
	if err := checkLen("query", req.GetQuery(), search.MaxQueryChars); err != nil {
		return nil, err
	}
	q, err := search.Parse(req.GetQuery())
	var many *search.TooManyTerms
	switch {
	case errors.Is(err, search.ErrNoWords):
		return nil, invalid("query %q has no words to search for, only spaces or punctuation", req.GetQuery())
	case errors.As(err, &many):
		return nil, invalid("query has %d words or parts of words; the limit is %d", many.N, search.MaxQueryTerms)
	case err != nil:
		return nil, invalid("query: %v", err)
	}
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	// from:, in: and mentions:me name members and channels (searchfilters.go).
	if err := q.Resolve(searchNames{d, c.ID}, c.ID); err != nil {
		return nil, invalid("query: %v", err)
	}
	// Only the channels the caller is in: receives the messages of (a hidden DM included; not
	// a TEXT channel they left in OPT_IN mode, nor a private channel they were removed from).
	var visible func(string) bool
	if id := req.GetChannelId(); id != "" {
		rec, err := d.visibleChannel(c, id)
		if err != nil {
			return nil, err
		}
		in := d.In(c.ID, rec) && q.Filter.Narrow(id)
		visible = func(ch string) bool { return in && ch == id }
	} else {
		in := map[string]bool{}
		for id, rec := range d.channels {
			if d.In(c.ID, rec) && (q.Filter.ChannelID == "" || id == q.Filter.ChannelID) {
				in[id] = true
			}
		}
		visible = func(ch string) bool { return in[ch] }
	}
	if !e.index.Ready() {
		return nil, newError(CodeUnavailable, "search is not ready yet: the messages stored before this version are being indexed (%d so far); try again in a minute", e.index.Built())
	}
	ms, err := e.index.Find(ctx, q, visible, e.readCutoff(), limit)
	if err != nil {
		return nil, err
	}
	err = e.db.View(func(r *store.Reader) error { return fillReplies(r, ms...) })
	if err != nil {
		return nil, err
	}
	return &svcv1.SearchResponse{Messages: ms}, nil
}

// stageSearch stages an op for the index in the change's transaction; ops without terms are
// nothing to index.
func (tx *Tx) stageSearch(op *storepb.SearchOp) error {
	if op == nil || len(op.GetTerms()) == 0 {
		return nil
	}
	s, err := tx.ix.Stage(tx.mutate(), op)
	if err != nil {
		return err
	}
	tx.searchOps = append(tx.searchOps, s)
	return nil
}

// indexSent indexes a new message. text is its text analyzed before the change; with file
// names (known only inside the writer) it is analyzed again here.
func (tx *Tx) indexSent(m *svcv1.Message, text search.Doc) error {
	if search.HasFields(m) {
		return tx.stageSearch(search.AddOp(m))
	}
	return tx.stageSearch(search.DocOp(m, text))
}

// indexEdited replaces what the index holds of an edited message. The old text is analyzed
// once, here in the writer (it is read here): its op both tells whether anything changed and
// says what to take out.
func (tx *Tx) indexEdited(old, edited *svcv1.Message, text search.Doc) error {
	add := search.DocOp(edited, text)
	if search.HasFields(edited) {
		add = search.AddOp(edited)
	}
	was := search.AddOp(old)
	if slices.Equal(was.GetTerms(), add.GetTerms()) && slices.Equal(was.GetMasks(), add.GetMasks()) {
		return nil
	}
	if err := tx.stageSearch(search.UndoOp(was)); err != nil {
		return err
	}
	return tx.stageSearch(add)
}

// unindex takes a message that is deleted or purged out of the index.
func (tx *Tx) unindex(m *svcv1.Message) error {
	if m.GetDeleted() {
		return nil // its terms went when it was deleted
	}
	return tx.stageSearch(search.RemoveOp(m))
}
