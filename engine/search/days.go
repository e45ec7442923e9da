package search

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// Days (before: and after:). A document is its message's created_seq, and the walk of the lists
// seeks to documents, so a range of days must become a range of documents. Messages sent here
// take their seqs in time order, but an import writes older messages after newer ones (new
// seqs, their original times): the first document of a day says nothing of the days after it.
// The index therefore keeps two meta rows for each UTC day that has documents:
//
//	day:<day>   the lowest document of that day or of any later day
//	last:<day>  the highest document of that day or of any earlier day
//
// after:D walks from the day: row of the first day from D+1 on, before:D up to the last: row of
// the last day before D: two seeks, in whatever order the history came. Each batch of ops keeps
// them so (Apply): a day of the batch lowers the day: rows of the days before it and raises the
// last: rows of the days after it, each sweep stopping at the first row that holds as much
// already. A message sent now is of the newest day and changes a row or two; an import of old
// days raises the last: rows of every day after them, once per batch. Removals leave the rows as
// they are: a range a little too wide only walks more, and every candidate is checked by its
// time.

// bounds are the lowest and highest document of a day among a batch's ops.
type bounds struct{ first, last int64 }

var (
	dayPrefix  = metaKey("day:")
	lastPrefix = metaKey("last:")
)

func dayKey(day int64) []byte {
	return binary.BigEndian.AppendUint64(slices.Clone(dayPrefix), uint64(day))
}
func lastKey(day int64) []byte {
	return binary.BigEndian.AppendUint64(slices.Clone(lastPrefix), uint64(day))
}

// floorDay and ceilDay are the UTC day a time is in, and the first day that starts at or after it.
func floorDay(ms int64) int64 {
	d := ms / dayMs
	if ms < 0 && ms%dayMs != 0 {
		d--
	}
	return d
}

func ceilDay(ms int64) int64 { return -floorDay(-ms) }

// dayBounds notes the lowest and highest document of each day among ops that add. Times before
// 1970 have no day rows (the days' keys are unsigned): no message has one.
func dayBounds(ops []*storepb.SearchOp) map[int64]bounds {
	var out map[int64]bounds
	for _, op := range ops {
		if op.GetRemove() || op.GetAtMs() <= 0 {
			continue
		}
		if out == nil {
			out = map[int64]bounds{}
		}
		day, doc := floorDay(op.GetAtMs()), op.GetDoc()
		b, ok := out[day]
		if !ok {
			b = bounds{doc, doc}
		}
		b.first, b.last = min(b.first, doc), max(b.last, doc)
		out[day] = b
	}
	return out
}

// dayRow reads the row under prefix at key or, when there is none, the next one (the one before,
// reverse): its day and document.
func dayRow(r *store.Reader, prefix, key []byte, reverse bool) (day, doc int64, ok bool, err error) {
	it := r.SearchIter(prefix, reverse)
	defer it.Close()
	it.Seek(key)
	if !it.Valid() {
		return 0, 0, false, nil
	}
	k := it.Key()
	if len(k) != len(prefix)+8 {
		return 0, 0, false, nil
	}
	day = int64(binary.BigEndian.Uint64(k[len(prefix):]))
	v, err := it.Value(nil)
	if err != nil || len(v) != 8 {
		return 0, 0, false, err
	}
	return day, int64(binary.BigEndian.Uint64(v)), true, nil
}

// docRange turns a plan's days into the documents to walk: lo <= doc < hi. ok is false when
// no indexed document can be in them.
func docRange(r *store.Reader, p *Plan) (lo, hi int64, ok bool, err error) {
	lo, hi = 0, int64(1)<<62
	if p.AfterMs > 0 {
		_, d, found, err := dayRow(r, dayPrefix, dayKey(floorDay(p.AfterMs)), false)
		if err != nil || !found {
			return 0, 0, false, err
		}
		lo = d
	}
	if p.BeforeMs > 0 {
		end := ceilDay(p.BeforeMs) - 1 // the last day with times before BeforeMs
		if end < 0 {
			return 0, 0, false, nil
		}
		_, d, found, err := dayRow(r, lastPrefix, lastKey(end), true)
		if err != nil || !found {
			return 0, 0, false, err
		}
		hi = d + 1
	}
	return lo, hi, lo < hi, nil
}

// dayWrite is a day row to write.
type dayWrite struct {
	key []byte
	doc int64
}

// days keeps the day: and last: rows with a batch's days (see above).
func (w *chunkWriter) days(days map[int64]bounds) error {
	if len(days) == 0 {
		return nil
	}
	// A transaction has one iterator at a time: the chunks' is done with.
	if w.it != nil {
		w.it.Close()
		w.it = nil
	}
	order := slices.Sorted(maps.Keys(days))
	firsts, err := lowerFirsts(&w.b.Reader, order, days)
	if err != nil {
		return err
	}
	lasts, err := raiseLasts(&w.b.Reader, order, days)
	if err != nil {
		return err
	}
	for _, dw := range append(firsts, lasts...) {
		if w.full() {
			// An import's sweep may touch every day: the rows are as good in two transactions
			// (a crash between them applies the ops again, and the sweep finds the same).
			if err := w.commit(); err != nil {
				return err
			}
			w.begin()
			w.it.Close()
			w.it = nil
		}
		if err := w.set(dw.key, binary.BigEndian.AppendUint64(nil, uint64(dw.doc))); err != nil {
			return err
		}
	}
	return nil
}

// lowerFirsts sweeps the day: rows from the batch's newest day down: each day's row is the
// lowest document of it and of the days after it.
func lowerFirsts(r *store.Reader, order []int64, days map[int64]bounds) ([]dayWrite, error) {
	low := int64(math.MaxInt64)
	if _, d, ok, err := dayRow(r, dayPrefix, dayKey(order[len(order)-1]+1), false); err != nil {
		return nil, err
	} else if ok {
		low = d
	}
	var out []dayWrite
	it := r.SearchIter(dayPrefix, true)
	defer it.Close()
	it.Seek(dayKey(order[len(order)-1]))
	for i := len(order) - 1; ; {
		row := it.Valid() && len(it.Key()) == len(dayPrefix)+8
		var rowDay int64
		if row {
			rowDay = int64(binary.BigEndian.Uint64(it.Key()[len(dayPrefix):]))
		}
		switch {
		case i >= 0 && (!row || order[i] > rowDay): // a day of the batch without a row yet
			low = min(low, days[order[i]].first)
			out = append(out, dayWrite{dayKey(order[i]), low})
			i--
		case row:
			v, err := it.Value(nil)
			if err != nil {
				return nil, err
			}
			old := int64(math.MaxInt64)
			if len(v) == 8 {
				old = int64(binary.BigEndian.Uint64(v))
			}
			if i >= 0 && order[i] == rowDay {
				low = min(low, days[order[i]].first)
				i--
			}
			if low < old {
				out = append(out, dayWrite{dayKey(rowDay), low})
			} else {
				low = old
				if i < 0 {
					return out, nil // every earlier row is as low already
				}
			}
			it.Next()
		default:
			return out, nil
		}
	}
}

// raiseLasts sweeps the last: rows from the batch's oldest day up: each day's row is the highest
// document of it and of the days before it.
func raiseLasts(r *store.Reader, order []int64, days map[int64]bounds) ([]dayWrite, error) {
	high := int64(-1)
	if order[0] > 0 {
		if _, d, ok, err := dayRow(r, lastPrefix, lastKey(order[0]-1), true); err != nil {
			return nil, err
		} else if ok {
			high = d
		}
	}
	var out []dayWrite
	it := r.SearchIter(lastPrefix, false)
	defer it.Close()
	it.Seek(lastKey(order[0]))
	for i := 0; ; {
		row := it.Valid() && len(it.Key()) == len(lastPrefix)+8
		var rowDay int64
		if row {
			rowDay = int64(binary.BigEndian.Uint64(it.Key()[len(lastPrefix):]))
		}
		switch {
		case i < len(order) && (!row || order[i] < rowDay): // a day of the batch without a row yet
			high = max(high, days[order[i]].last)
			out = append(out, dayWrite{lastKey(order[i]), high})
			i++
		case row:
			v, err := it.Value(nil)
			if err != nil {
				return nil, err
			}
			old := int64(-1)
			if len(v) == 8 {
				old = int64(binary.BigEndian.Uint64(v))
			}
			if i < len(order) && order[i] == rowDay {
				high = max(high, days[order[i]].last)
				i++
			}
			if high > old {
				out = append(out, dayWrite{lastKey(rowDay), high})
			} else {
				high = old
				if i == len(order) {
					return out, nil // every later row is as high already
				}
			}
			it.Next()
		default:
			return out, nil
		}
	}
}
