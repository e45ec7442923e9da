package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// instance is one guest run. Its goroutine instantiates the module, which runs the guest's
// _start to completion; the guest blocks in its first stdin read until an input is handed
// over (give) or the instance is abandoned (drop). Every instance serves at most one input.
type instance struct {
	ctx    context.Context
	cancel context.CancelCauseFunc // stops the guest at its next check (CloseOnContextDone)

	stdin  *stdin
	stdout *output
	stderr *output

	handoff sync.Once     // input is either given or dropped, once
	done    chan struct{} // closed when the guest has ended
	err     error         // how it ended (nil: exit status 0); read only after done
}

// Output bounds. A response is a few hundred bytes; a Go panic's first lines are enough
// to tell what happened.
const (
	maxStdout = 64 << 10
	maxStderr = 4 << 10
)

// start launches an instance. It does not wait for the guest to be ready.
func (s *Sandbox) start() *instance {
	ctx, cancel := context.WithCancelCause(s.ctx)
	inst := &instance{
		ctx:    ctx,
		cancel: cancel,
		stdin:  &stdin{input: make(chan []byte, 1), ready: make(chan struct{})},
		stdout: &output{limit: maxStdout, overflow: func() { cancel(errOutputTooLarge) }},
		stderr: &output{limit: maxStderr},
		done:   make(chan struct{}),
	}
	cfg := s.modCfg.WithStdin(inst.stdin).WithStdout(inst.stdout).WithStderr(inst.stderr)
	s.instances.Add(1)
	go func() {
		defer s.instances.Done()
		mod, err := s.rt.InstantiateModule(experimental.WithMemoryAllocator(ctx, guestMemory), s.compiled, cfg)
		if mod != nil {
			_ = mod.Close(context.Background())
		}
		inst.err = err
		close(inst.done)
	}()
	return inst
}

// startReady starts an instance and waits until its guest is blocked reading stdin: its
// runtime is up, and the deadline of the input handed to it covers only the input's work.
// A guest gets the start deadline (Options.StartTimeout) to get there.
func (s *Sandbox) startReady(ctx context.Context) (*instance, error) {
	inst := s.start()
	timer := time.NewTimer(s.startIn)
	defer timer.Stop()
	select {
	case <-inst.stdin.ready:
		return inst, nil
	case <-inst.done:
		inst.drop(errDropped) // releases its context
		if s.ctx.Err() != nil {
			return nil, ErrClosed
		}
		return nil, fmt.Errorf("guest ended before reading its input: %s", inst.describeEnd())
	case <-timer.C:
		inst.drop(errTimeout)
		return nil, fmt.Errorf("guest did not start within %v", s.startIn)
	case <-ctx.Done():
		inst.drop(context.Cause(ctx))
		if s.ctx.Err() != nil {
			return nil, ErrClosed
		}
		return nil, ctx.Err()
	}
}

// give hands the request to the guest. The channel has room for it, so this never blocks,
// even when the guest never reads.
func (inst *instance) give(req []byte) {
	inst.handoff.Do(func() { inst.stdin.input <- req })
}

// drop abandons an instance that was given no input: its guest, blocked in a host read
// that no context can interrupt, gets an error from that read, and its context is canceled
// for the case it is running instead.
func (inst *instance) drop(cause error) {
	inst.cancel(cause)
	inst.handoff.Do(func() { close(inst.stdin.input) })
}

// describeEnd says how a guest that ended on its own ended, for an error message. Called
// only after done.
func (inst *instance) describeEnd() string {
	var exit *sys.ExitError
	switch {
	case inst.err == nil:
		return "exit status 0" + inst.stderrNote()
	case errors.As(inst.err, &exit):
		return fmt.Sprintf("exit status %d%s", exit.ExitCode(), inst.stderrNote())
	default: // a trap: wazero's message names it ("wasm error: unreachable")
		return firstLine(inst.err.Error()) + inst.stderrNote()
	}
}

// stderrNote quotes the first line the guest wrote to stderr, if any: for a Go guest, the
// panic or fatal error.
func (inst *instance) stderrNote() string {
	if line := firstLine(inst.stderr.buf.String()); line != "" {
		return fmt.Sprintf(" (stderr: %q)", line)
	}
	return ""
}

// firstLine returns s's first non-empty line, shortened to a log-friendly length.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(line) > 200 {
			line = line[:200] + "..."
		}
		return line
	}
	return ""
}

// errDropped is what an abandoned guest's stdin read returns.
var errDropped = errors.New("instance dropped")

// stdin is an instance's standard input. Its first Read marks the guest ready and waits
// for the request. Only the guest's goroutine calls Read.
type stdin struct {
	input   chan []byte
	ready   chan struct{}
	started bool
	rest    []byte
}

func (r *stdin) Read(p []byte) (int, error) {
	if !r.started {
		r.started = true
		close(r.ready)
		req, ok := <-r.input
		if !ok {
			return 0, errDropped
		}
		r.rest = req
	}
	if len(r.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// output collects up to limit bytes of a guest's stdout or stderr. Past the limit, an
// output with an overflow func calls it (which stops the guest) and fails the write;
// one without keeps its first bytes and discards the rest. Only the guest's goroutine
// writes; buf is read after the guest has ended.
type output struct {
	buf      bytes.Buffer
	limit    int
	overflow func()
}

func (o *output) Write(p []byte) (int, error) {
	room := o.limit - o.buf.Len()
	if len(p) <= room {
		return o.buf.Write(p)
	}
	if o.overflow != nil {
		o.overflow()
		return 0, errOutputTooLarge
	}
	o.buf.Write(p[:room])
	return len(p), nil
}
