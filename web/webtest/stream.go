package webtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// Wait bounds every wait for an event: a guard against a hung test, never a measurement.
const Wait = 10 * time.Second

// Stream is an open Subscribe stream read in the background.
type Stream struct {
	t      testing.TB
	events *Inbox[*svcv1.Event]
	done   chan struct{}
	err    error
	cancel context.CancelFunc
	// Ephemeral keeps typing, presence and heartbeat events, which are dropped by default so
	// that tests see the logged events in order.
	Ephemeral bool
	// Audit keeps audit_appended, which is dropped by default: the audit log's own tests read
	// it, and the others see the events of the calls they test, whichever of those calls the
	// audit log records.
	Audit bool
}

// Subscribe opens a stream after afterSeq; it is closed when the test ends.
func (c *Client) Subscribe(t testing.TB, afterSeq int64) *Stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.Chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: afterSeq}))
	if err != nil {
		cancel()
		t.Fatalf("subscribe: %v", err)
	}
	s := &Stream{t: t, events: NewInbox[*svcv1.Event](), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		defer st.Close()
		for st.Receive() {
			s.events.Put(st.Msg())
		}
		s.err = st.Err()
	}()
	t.Cleanup(s.Close)
	return s
}

// Close ends the stream and waits for its reader.
func (s *Stream) Close() {
	s.cancel()
	<-s.done
}

func ephemeral(ev *svcv1.Event) bool {
	return ev.GetSeq() == 0 && !ev.GetResync()
}

// dropped reports whether Next passes ev by.
func (s *Stream) dropped(ev *svcv1.Event) bool {
	return !s.Ephemeral && ephemeral(ev) || !s.Audit && ev.GetAuditAppended() != nil
}

// Next returns the next event (logged ones and resync only, unless Ephemeral), failing the test
// if none arrives in time or the stream ends.
func (s *Stream) Next() *svcv1.Event {
	s.t.Helper()
	deadline := time.Now().Add(Wait)
	for {
		ev, err := s.events.Wait(s.done, deadline)
		switch {
		case errors.Is(err, ErrEnded):
			s.t.Fatalf("the stream ended (%v) while an event was expected", s.err)
			return nil
		case err != nil:
			s.t.Fatalf("no event within %s", Wait)
			return nil
		case s.dropped(ev):
			continue
		}
		return ev
	}
}

// Until returns the events up to and including the first one that matches.
func (s *Stream) Until(match func(*svcv1.Event) bool) []*svcv1.Event {
	s.t.Helper()
	var out []*svcv1.Event
	for {
		ev := s.Next()
		out = append(out, ev)
		if match(ev) {
			return out
		}
	}
}

// Ended waits for the stream to end and returns how: nil for a normal end.
func (s *Stream) Ended() error {
	s.t.Helper()
	select {
	case <-s.done:
		return s.err
	case <-time.After(Wait):
		s.t.Fatalf("the stream did not end within %s", Wait)
		return nil
	}
}
