package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// textPrefix starts every message the tool sends; the rest is the run id, the message number
// and the send time, then padding: "hl <run> <k> <unix ns> xxxx".
const textPrefix = "hl"

func messageText(run string, k int64, sent time.Time, size int) string {
	s := textPrefix + " " + run + " " + strconv.FormatInt(k, 10) + " " + strconv.FormatInt(sent.UnixNano(), 10)
	if pad := size - len(s) - 1; pad > 0 {
		s += " " + strings.Repeat("x", pad)
	}
	return s
}

// streams are the subscribers' open Subscribe streams, each read by its own goroutine.
type streams struct {
	ctx     context.Context
	cancel  context.CancelFunc
	readers sync.WaitGroup
	opened  atomic.Int64
	failed  atomic.Int64
	ended   atomic.Int64 // streams that ended before the tool closed them
	resyncs atomic.Int64
}

// openStreams opens one stream per subscriber after seq, a few at a time, each confirmed by
// the heartbeat the server sends first.
func (r *run) openStreams(ctx context.Context, afterSeq int64) error {
	var wg sync.WaitGroup
	var next atomic.Int64
	for range r.cfg.Concurrency {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= r.cfg.Subscribers || ctx.Err() != nil {
					return
				}
				if err := r.openStream(ctx, i, afterSeq); err != nil {
					r.streams.failed.Add(1)
					r.errs.add("open", err)
					continue
				}
				r.streams.opened.Add(1)
			}
		})
	}
	wg.Wait()
	if n := r.streams.failed.Load(); n > 0 {
		return fmt.Errorf("%d of %d streams did not open", n, r.cfg.Subscribers)
	}
	return ctx.Err()
}

func (r *run) openStream(phase context.Context, i int, afterSeq int64) error {
	switch r.cfg.StreamClient {
	case "h2":
		return r.openH2Stream(phase, i, afterSeq)
	case "ws":
		return r.openWSStream(phase, i, afterSeq)
	}
	m := r.members[i]
	ctx, cancel := context.WithCancel(r.streams.ctx)
	// Until the first event arrives the phase's deadline applies; after it, the run's.
	stop := context.AfterFunc(phase, cancel)
	st, err := m.chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: afterSeq}))
	if err != nil {
		cancel()
		return err
	}
	if !st.Receive() {
		err := st.Err()
		st.Close()
		cancel()
		if err == nil {
			err = errors.New("the stream ended before its first event")
		}
		return err
	}
	if err := firstEvent(factsOf(st.Msg()), afterSeq); err != nil {
		st.Close()
		cancel()
		return err
	}
	if !stop() {
		// The phase ended just as the stream opened: it is cancelled already.
		st.Close()
		cancel()
		return phase.Err()
	}
	r.streams.readers.Go(func() {
		defer cancel()
		defer st.Close()
		for st.Receive() {
			r.receive(i, factsOf(st.Msg()))
		}
		r.streamEnded(st.Err())
	})
	return nil
}

// openH2Stream is openStream with the tool's own reader, on a connection of the stream's own:
// the member's connection from joining is closed first, so that a subscriber holds one
// connection, as with the Connect client.
func (r *run) openH2Stream(phase context.Context, i int, afterSeq int64) error {
	m := r.members[i]
	m.transport.CloseIdleConnections()
	st, err := dialSubscribe(phase, r.cfg.URL, r.cfg.TLS, m.source, m.token, &svcv1.SubscribeRequest{AfterSeq: afterSeq}, h2Window)
	if err != nil {
		return err
	}
	// Until the first event arrives the phase's deadline applies; after it, the run's.
	stop := context.AfterFunc(phase, func() { st.Close() })
	var ev eventFacts
	err = st.Next(&ev)
	if err == io.EOF {
		err = errors.New("the stream ended before its first event")
	}
	if err == nil {
		err = firstEvent(ev, afterSeq)
	}
	if !stop() && err == nil {
		err = phase.Err()
	}
	if err != nil {
		st.Close()
		return err
	}
	closed := context.AfterFunc(r.streams.ctx, func() { st.Close() })
	r.streams.readers.Go(func() {
		defer closed()
		defer st.Close()
		var err error
		for err = st.Next(&ev); err == nil; err = st.Next(&ev) {
			r.receive(i, ev)
		}
		if err == io.EOF {
			err = nil
		}
		r.streamEnded(err)
	})
	return nil
}

// firstEvent checks a stream's first event: resync means the server no longer has what
// follows afterSeq.
func firstEvent(ev eventFacts, afterSeq int64) error {
	if ev.resync {
		return fmt.Errorf("the stream opened with resync: after_seq %d is outside the server's log", afterSeq)
	}
	return nil
}

// streamEnded counts a stream that ended before the tool closed it, with its error.
func (r *run) streamEnded(err error) {
	if r.streams.ctx.Err() != nil {
		return
	}
	r.streams.ended.Add(1)
	if err != nil {
		r.errs.add("stream", err)
	}
}

// receive checks one event of subscriber i.
func (r *run) receive(i int, ev eventFacts) {
	now := time.Now()
	if ev.seq > 0 {
		r.ledger.seq(i, ev.seq)
	}
	if ev.resync {
		r.streams.resyncs.Add(1)
		return
	}
	if !ev.created {
		return
	}
	k, sent, ok := parseText(ev.text, r.id)
	if !ok {
		return
	}
	if r.ledger.deliver(i, k) {
		r.deliveryLat.record(now.Sub(time.Unix(0, sent)))
		r.deliveries.Add(1)
	}
}

// closeStreams ends every stream and waits (bounded) for the readers.
func (r *run) closeStreams(wait time.Duration) bool {
	r.streams.cancel()
	done := make(chan struct{})
	go func() {
		r.streams.readers.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}
