package sandbox

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// Lazy is a Sandbox that starts on its first call and stops again after a quiet spell.
//
// A started Sandbox is not small: wazero's compiled guest (about 22 MB of machine code)
// and the pool's guests, each with its Go runtime up, hold some 60 MB, 100 MB and more
// right after a first compile. A community server that sees an upload now and then
// should not carry that while idle. The first call after a start or a quiet spell pays
// for the start: about 0.1 s with a warm compilation cache (Options.CacheDir), about a
// second without one, plus a guest's start.
//
// Its methods are safe for concurrent use.
type Lazy struct {
	opts  Options
	quiet time.Duration

	// ctx ends when Close is called, stopping a start in progress.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	closed   bool
	sb       *Sandbox // nil until started, and again after a quiet spell
	starting *attempt // non-nil while a start is in progress
	inflight int      // calls using sb
	lastUse  time.Time
	timer    *time.Timer // fires stopIfQuiet; nil when quiet is zero
	starts   int         // Sandboxes started so far, for tests

	// work counts the goroutines that start or close a Sandbox.
	work sync.WaitGroup
}

// attempt is one start of the Sandbox, which callers that arrive meanwhile wait for.
type attempt struct {
	done chan struct{}
	// waiting counts the callers waiting for this start; a successful start counts them in
	// flight at once and hands each the Sandbox, so that a quiet spell cannot close it between
	// the start and their calls (on a busy machine a waiter may wake long after the start).
	waiting int
	sb      *Sandbox // set with err before done is closed
	err     error
}

// NewLazy checks the options and returns a Lazy that starts a Sandbox with them on its
// first call. Once no call has used it for quiet, the Sandbox is closed and its memory
// released; the next call starts a new one. A zero quiet keeps it until Close.
func NewLazy(opts Options, quiet time.Duration) (*Lazy, error) {
	if _, err := withDefaults(opts); err != nil {
		return nil, err
	}
	l := &Lazy{opts: opts, quiet: quiet}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	if quiet > 0 {
		l.timer = time.AfterFunc(time.Hour, l.stopIfQuiet)
		l.timer.Stop()
	}
	return l, nil
}

// Inspect is Sandbox.Inspect on the started Sandbox, starting it if needed.
func (l *Lazy) Inspect(ctx context.Context, head []byte) (Info, error) {
	sb, err := l.acquire(ctx)
	if err != nil {
		return Info{}, err
	}
	defer l.release()
	return sb.Inspect(ctx, head)
}

// Preview is Sandbox.Preview on the started Sandbox, starting it if needed.
func (l *Lazy) Preview(ctx context.Context, p Page) (Preview, error) {
	sb, err := l.acquire(ctx)
	if err != nil {
		return Preview{}, err
	}
	defer l.release()
	return sb.Preview(ctx, p)
}

// Decode is Sandbox.Decode on the started Sandbox, starting it if needed.
func (l *Lazy) Decode(ctx context.Context, img []byte, lim DecodeLimits) (Decoded, error) {
	sb, err := l.acquire(ctx)
	if err != nil {
		return Decoded{}, err
	}
	defer l.release()
	return sb.Decode(ctx, img, lim)
}

// Started reports whether a Sandbox is running now: for tests and metrics.
func (l *Lazy) Started() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sb != nil
}

// acquire returns the started Sandbox, starting it (or waiting for the start in progress)
// if there is none. Every successful acquire must be followed by one release.
func (l *Lazy) acquire(ctx context.Context) (*Sandbox, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, ErrClosed
	}
	if l.sb != nil {
		l.inflight++
		l.mu.Unlock()
		return l.sb, nil
	}
	a := l.starting
	if a == nil {
		a = &attempt{done: make(chan struct{})}
		l.starting = a
		l.work.Add(1)
		go l.start(a)
	}
	a.waiting++
	l.mu.Unlock()
	// The start runs on its own: a caller that gives up does not stop it for the
	// others waiting.
	select {
	case <-a.done:
		return a.sb, a.err
	case <-ctx.Done():
		l.mu.Lock()
		select {
		case <-a.done:
			// Started meanwhile, and counted this caller in flight: give its place back.
			l.mu.Unlock()
			if a.err == nil {
				l.release()
			}
		default:
			a.waiting--
			l.mu.Unlock()
		}
		return nil, ctx.Err()
	}
}

// start starts a Sandbox for attempt a.
func (l *Lazy) start(a *attempt) {
	defer l.work.Done()
	sb, err := New(l.ctx, l.opts)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil && l.closed {
		l.closeInBackground(sb, false)
		err = ErrClosed
	}
	if err == nil {
		l.starts++
		l.sb = sb
		l.inflight += a.waiting
		a.sb = sb
		if a.waiting == 0 {
			// Every caller gave up: the quiet spell starts now.
			l.lastUse = time.Now()
			l.armTimer()
		}
	} else if l.closed {
		err = ErrClosed
	}
	a.err = err
	l.starting = nil
	close(a.done)
}

// release ends a call that acquire let in.
func (l *Lazy) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	if l.inflight == 0 {
		l.lastUse = time.Now()
		l.armTimer()
	}
}

// armTimer (re)starts the quiet timer. Called with mu held.
func (l *Lazy) armTimer() {
	if l.timer != nil {
		l.timer.Reset(l.quiet)
	}
}

// stopIfQuiet closes the Sandbox if no call has used it for the quiet spell.
func (l *Lazy) stopIfQuiet() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sb == nil || l.inflight > 0 {
		return
	}
	if left := l.quiet - time.Since(l.lastUse); left > 0 {
		// A timer from before the last call's end, or one that fired early.
		l.timer.Reset(left)
		return
	}
	// Stopping is for giving the memory back, so give it back now.
	l.closeInBackground(l.sb, true)
	l.sb = nil
}

// closeInBackground closes sb without holding up the caller; with giveBack it then hands the
// freed memory to the system: what the Sandbox held is garbage, most of it in spans the
// runtime would return only bit by bit over minutes, and a forced collection in a quiet moment
// costs a few milliseconds. Called with mu held.
func (l *Lazy) closeInBackground(sb *Sandbox, giveBack bool) {
	l.work.Add(1)
	go func() {
		defer l.work.Done()
		_ = sb.Close(context.Background())
		if giveBack {
			debug.FreeOSMemory()
		}
	}()
}

// Close stops a start in progress, closes the Sandbox if one is running (calls in progress
// return ErrClosed) and waits for it all, or until ctx ends. Later calls return ErrClosed.
func (l *Lazy) Close(ctx context.Context) error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		l.cancel()
		if l.timer != nil {
			l.timer.Stop()
		}
		if l.sb != nil {
			l.closeInBackground(l.sb, false)
			l.sb = nil
		}
	}
	l.mu.Unlock()
	done := make(chan struct{})
	go func() {
		l.work.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
