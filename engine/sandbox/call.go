package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"hearth/engine/sandbox/internal/wire"
)

// call runs one operation in a fresh instance and returns the guest's response, which
// reports no error.
func (s *Sandbox) call(ctx context.Context, op string, payload []byte) (*wire.Response, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	s.calls.Add(1)
	s.mu.Unlock()
	defer s.calls.Done()

	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.ctx.Done():
		return nil, ErrClosed
	}
	defer func() {
		<-s.sem
		if len(s.sem) == 0 {
			select { // tell the refill goroutine; a signal already pending will do
			case s.quiet <- struct{}{}:
			default:
			}
		}
	}()

	inst, err := s.take(ctx)
	if err != nil {
		return nil, err
	}
	return s.exchange(ctx, inst, wire.EncodeRequest(op, payload))
}

// exchange hands req to a ready instance, waits for the guest to end (or stops it), and
// reads its response.
func (s *Sandbox) exchange(ctx context.Context, inst *instance, req []byte) (*wire.Response, error) {
	// Releases the instance's context once the guest has ended, whichever way.
	defer inst.cancel(nil)

	inst.give(req)
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case <-inst.done:
	case <-timer.C:
		inst.cancel(errTimeout)
		<-inst.done
	case <-ctx.Done():
		inst.cancel(context.Cause(ctx))
		<-inst.done
	}

	if inst.ctx.Err() != nil {
		switch cause := context.Cause(inst.ctx); {
		case errors.Is(cause, errTimeout):
			return nil, unreadable("no answer within %v", s.timeout)
		case errors.Is(cause, errOutputTooLarge):
			return nil, unreadable("output over %d bytes", maxStdout)
		case errors.Is(cause, ErrClosed):
			return nil, ErrClosed
		default:
			return nil, ctx.Err()
		}
	}
	if inst.err != nil {
		return nil, unreadable("guest failed: %s", inst.describeEnd())
	}
	return decode(inst.stdout.buf.Bytes())
}

// decode parses the guest's stdout: exactly one Response, no unknown fields, nothing
// after it.
func decode(out []byte) (*wire.Response, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var resp wire.Response
	if err := dec.Decode(&resp); err != nil {
		return nil, unreadable("guest output is not a response: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, unreadable("guest output goes on after the response")
	}
	if resp.Error != "" {
		return nil, unreadable("guest: %q", firstLine(resp.Error))
	}
	return &resp, nil
}
