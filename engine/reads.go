package engine

import (
	"context"
	"math"
	"slices"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// ListMessages pages through a channel's top-level messages or a thread's replies.
func (e *Engine) ListMessages(ctx context.Context, c Caller, req *svcv1.ListMessagesRequest) (*svcv1.ListMessagesResponse, error) {
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = listMessagesDef
	}
	if limit < 1 || limit > listMessagesMax {
		return nil, invalid("limit must be 1 to %d; got %d", listMessagesMax, req.GetLimit())
	}
	anchors := 0
	for _, id := range []string{req.GetBeforeId(), req.GetAfterId(), req.GetAroundId()} {
		if id != "" {
			anchors++
		}
	}
	if anchors > 1 {
		return nil, invalid("set at most one of before_id, after_id and around_id")
	}
	d := e.snap.Load()
	rec, err := d.visibleChannel(c, req.GetChannelId())
	if err != nil {
		return nil, err
	}
	chID := rec.GetChannel().GetId()
	cutoff := e.readCutoff()
	out := &svcv1.ListMessagesResponse{}
	err = e.db.View(func(r *store.Reader) error {
		ix := store.TopLevel(chID)
		if root := req.GetThreadRootId(); root != "" {
			m, err := liveMessage(r, root, cutoff)
			if isNotFound(err) || (err == nil && m.GetChannelId() != chID) {
				return notFound("thread_root_id %.64s is not a message of this channel", root)
			}
			if err != nil {
				return err
			}
			if m.GetThreadRootId() != "" {
				return invalid("thread_root_id %s is a reply, not a thread root", root)
			}
			ix = store.Thread(root)
		}
		anchor := func(field, id string) (int64, error) {
			m, err := liveMessage(r, id, cutoff)
			if isNotFound(err) || (err == nil && (m.GetChannelId() != chID || m.GetThreadRootId() != req.GetThreadRootId())) {
				where := "this channel's top-level messages"
				if req.GetThreadRootId() != "" {
					where = "this thread"
				}
				return 0, notFound("%s %.64s is not among %s", field, id, where)
			}
			return m.GetCreatedSeq(), err
		}
		var err error
		switch {
		case req.GetBeforeId() != "":
			s, err := anchor("before_id", req.GetBeforeId())
			if err != nil {
				return err
			}
			out.Messages, out.HasMore, err = walk(r, ix, s-1, true, limit, cutoff)
			if err != nil {
				return err
			}
		case req.GetAfterId() != "":
			s, err := anchor("after_id", req.GetAfterId())
			if err != nil {
				return err
			}
			out.Messages, out.HasMoreAfter, err = walk(r, ix, s+1, false, limit, cutoff)
			if err != nil {
				return err
			}
			// The anchor itself is older than what is returned.
			out.HasMore = true
		case req.GetAroundId() != "":
			s, err := anchor("around_id", req.GetAroundId())
			if err != nil {
				return err
			}
			older, hasMore, err := walk(r, ix, s-1, true, limit/2, cutoff)
			if err != nil {
				return err
			}
			newer, hasMoreAfter, err := walk(r, ix, s, false, limit-len(older), cutoff)
			if err != nil {
				return err
			}
			out.Messages, out.HasMore, out.HasMoreAfter = append(older, newer...), hasMore, hasMoreAfter
		default:
			out.Messages, out.HasMore, err = walk(r, ix, math.MaxInt64, true, limit, cutoff)
		}
		if err != nil {
			return err
		}
		return fillReplies(r, out.Messages...)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walk takes up to n messages from seq `from` towards older or newer messages, oldest first,
// and reports whether more lie beyond them. Messages past retention (created before cutoff) are
// left out: going older the first of them ends the walk, since every older one is past it too.
func walk(r *store.Reader, ix store.Index, from int64, older bool, n int, cutoff int64) ([]*svcv1.Message, bool, error) {
	var out []*svcv1.Message
	more := false
	var readErr error
	err := r.Walk(ix, from, older, func(_ int64, id string) bool {
		m, err := r.Message(id)
		if err != nil {
			readErr = err
			return false
		}
		if m.GetCreatedAtMs() < cutoff {
			return !older
		}
		if len(out) == n {
			more = true
			return false
		}
		out = append(out, m)
		return true
	})
	if err == nil {
		err = readErr
	}
	if older {
		slices.Reverse(out)
	}
	return out, more, err
}

// MarkRead moves the caller's read position in a channel (backwards too).
func (e *Engine) MarkRead(ctx context.Context, c Caller, req *svcv1.MarkReadRequest) (*svcv1.MarkReadResponse, error) {
	if req.GetSeq() < 0 {
		return nil, invalid("seq must not be negative; got %d", req.GetSeq())
	}
	return submit(e, func(tx *Tx) (*svcv1.MarkReadResponse, error) {
		d := tx.Snap()
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		chID := rec.GetChannel().GetId()
		cutoff := tx.cutoff()
		last, err := tx.read().LastKeptMessageSeq(chID, tx.seq, cutoff)
		if err != nil {
			return nil, err
		}
		if err := tx.mutate().PutReadState(c.ID, chID, min(req.GetSeq(), last)); err != nil {
			return nil, err
		}
		rs, err := readState(tx.read(), d, c.ID, rec, tx.seq, cutoff)
		if err != nil {
			return nil, err
		}
		if _, err := tx.emit(toMembers(c.ID), &svcv1.Event{Kind: &svcv1.Event_ReadState{ReadState: rs}}); err != nil {
			return nil, err
		}
		return &svcv1.MarkReadResponse{ReadState: rs}, nil
	})
}
