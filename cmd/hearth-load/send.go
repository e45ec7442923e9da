package main

import (
	"context"
	"sync"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// maxLag is how far a sender may fall behind its schedule before it skips slots.
const maxLag = time.Second

// perSender is the rate each sender is paced at: the total rate shared out, or, with no total
// rate, the per-sender cap (0: unpaced).
func (c *Config) perSender() float64 {
	if c.Rate > 0 {
		return c.Rate / float64(c.Senders)
	}
	return c.SenderRate
}

// send runs the senders from start until end.
func (r *run) send(ctx context.Context, start, end time.Time) {
	var wg sync.WaitGroup
	for j := range r.cfg.Senders {
		p := senderSchedule(start, r.cfg.Senders, j, r.cfg.perSender(), maxLag)
		m := r.members[j]
		wg.Go(func() { r.sender(ctx, m, p, end) })
	}
	wg.Wait()
}

func (r *run) sender(ctx context.Context, m *member, p *pacer, end time.Time) {
	for ctx.Err() == nil {
		due, skipped := p.next(time.Now())
		r.skipped.Add(skipped)
		if !due.Before(end) {
			return
		}
		if err := sleep(ctx, time.Until(due)); err != nil {
			return
		}
		k := r.ledger.take()
		if k < 0 {
			return
		}
		ch := r.channels[k%int64(len(r.channels))]
		cctx, cancel := context.WithTimeout(ctx, r.cfg.SendTimeout)
		t0 := time.Now()
		_, err := m.chat.SendMessage(cctx, connect.NewRequest(&svcv1.SendMessageRequest{
			ChannelId: ch,
			Text:      messageText(r.id, k, t0, r.cfg.TextBytes),
		}))
		took := time.Since(t0)
		cancel()
		r.sent.Add(1)
		if err == nil {
			r.sendLat.record(took)
			r.ledger.settle(k, acked)
			r.acked.Add(1)
			continue
		}
		r.errs.add("send", err)
		r.failed.Add(1)
		r.ledger.settle(k, outcome(err))
	}
}

// outcome says whether a failed send can still have been committed.
func outcome(err error) uint32 {
	switch connect.CodeOf(err) {
	case connect.CodeResourceExhausted, connect.CodeInvalidArgument, connect.CodePermissionDenied,
		connect.CodeFailedPrecondition, connect.CodeNotFound, connect.CodeUnauthenticated,
		connect.CodeUnimplemented:
		return refused
	}
	return unknown
}
