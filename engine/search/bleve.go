package search

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/search/query"

	"hearth/engine/store/storepb"
)

// Bleve keeps the posting lists in a bleve (scorch) index in its own folder: the candidate
// that docs/search.md compares with Badger. Documents carry the terms the analyzer made (one
// keyword token each), and their id is the doc number in 16 hex digits and the channel id, so
// sorting by id is sorting by age.
type Bleve struct {
	idx bleve.Index
}

// OpenBleve opens (or creates) the index in dir.
func OpenBleve(dir string) (*Bleve, error) {
	idx, err := bleve.Open(dir)
	if err == bleve.ErrorIndexPathDoesNotExist {
		im := bleve.NewIndexMapping()
		dm := bleve.NewDocumentStaticMapping()
		terms := bleve.NewTextFieldMapping()
		terms.Analyzer = keyword.Name
		terms.Store = false
		terms.IncludeTermVectors = false
		terms.IncludeInAll = false
		terms.DocValues = false
		dm.AddFieldMappingsAt("t", terms)
		im.DefaultMapping = dm
		im.StoreDynamic = false
		im.IndexDynamic = false
		im.DocValuesDynamic = false
		idx, err = bleve.New(dir, im)
	}
	if err != nil {
		return nil, err
	}
	return &Bleve{idx: idx}, nil
}

func bleveID(doc int64, channelID string) string { return fmt.Sprintf("%016x:%s", doc, channelID) }

func parseBleveID(id string) (int64, string, bool) {
	hex, ch, ok := strings.Cut(id, ":")
	if !ok {
		return 0, "", false
	}
	doc, err := strconv.ParseInt(hex, 16, 64)
	return doc, ch, err == nil
}

type bleveDoc struct {
	T []string `json:"t"`
}

// Apply indexes the ops in one bleve batch, with through as internal data: bleve persists a
// batch before Batch returns (unless unsafe_batch), so both are durable together.
func (b *Bleve) Apply(ops []*storepb.SearchOp, through uint64) error {
	batch := b.idx.NewBatch()
	for _, op := range ops {
		id := bleveID(op.GetDoc(), op.GetChannelId())
		if op.GetRemove() {
			batch.Delete(id)
			continue
		}
		if err := batch.Index(id, bleveDoc{T: slices.Concat(op.GetTerms(), []string{allDocs + "\x01"})}); err != nil {
			return err
		}
	}
	batch.SetInternal([]byte("applied"), binary.BigEndian.AppendUint64(nil, through))
	return b.idx.Batch(batch)
}

// Applied reads the number Apply recorded.
func (b *Bleve) Applied() (uint64, error) {
	v, err := b.idx.GetInternal([]byte("applied"))
	if err != nil || len(v) != 8 {
		return 0, err
	}
	return binary.BigEndian.Uint64(v), nil
}

// Candidates pages through the matches sorted by id, newest first.
func (b *Bleve) Candidates(plan Plan, visible func(channelID string) bool, fn func(doc int64, channelID string) bool) error {
	exact, prefixes := plan.Exact, plan.Prefixes
	var qs []query.Query
	for _, t := range exact {
		q := bleve.NewTermQuery(t)
		q.SetField("t")
		qs = append(qs, q)
	}
	for _, p := range prefixes {
		q := bleve.NewPrefixQuery(p)
		q.SetField("t")
		qs = append(qs, q)
	}
	if len(qs) == 0 {
		q := bleve.NewTermQuery(allDocs + "\x01")
		q.SetField("t")
		qs = append(qs, q)
	}
	var q query.Query = bleve.NewConjunctionQuery(qs...)
	if len(qs) == 1 {
		q = qs[0]
	}
	var after []string
	for {
		req := bleve.NewSearchRequestOptions(q, 64, 0, false)
		req.SortBy([]string{"-_id"})
		req.Score = bleve.ScoreNone
		if after != nil {
			req.SearchAfter = after
		}
		res, err := b.idx.Search(req)
		if err != nil {
			return err
		}
		for _, h := range res.Hits {
			doc, ch, ok := parseBleveID(h.ID)
			if !ok || !visible(ch) {
				continue
			}
			if !fn(doc, ch) {
				return nil
			}
		}
		if len(res.Hits) < 64 {
			return nil
		}
		after = []string{res.Hits[len(res.Hits)-1].ID}
	}
}

// Close closes the bleve index.
func (b *Bleve) Close() error { return b.idx.Close() }
