// Package sandbox parses untrusted bytes (uploaded files' heads, the HTML pages of link
// previews, and custom emoji images, decoded whole) inside a WebAssembly guest run by wazero,
// so that a malicious file can at worst make one call fail: never crash, hang or exhaust the
// server.
//
// Each input gets a fresh guest instance, never one that saw another input, with a memory
// limit, a deadline and a cap on its output. Starting a Go guest costs several
// milliseconds (its runtime's start), so a few instances are started ahead of need and
// wait, blocked reading stdin, until an input is handed to them.
package sandbox

import (
	"context"
	"crypto/rand"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Options configure a Sandbox. The zero value is usable.
type Options struct {
	// CacheDir keeps wazero's compiled code across restarts (compiling the guest takes
	// about a second; loading it from the cache a tenth of that). Empty: compile in memory
	// at every start.
	CacheDir string
	// MemoryLimit caps one guest's memory in bytes, rounded up to 64 KiB pages. Default
	// 32 MiB; at most 4 GiB.
	MemoryLimit int64
	// Timeout bounds one call from the moment its input is handed to the guest. Default 2 s.
	Timeout time.Duration
	// StartTimeout bounds how long a guest may take to start (its runtime up, blocked reading
	// its input). Default 30 s: a start takes milliseconds and no input can lengthen it, so
	// only a broken guest takes this long, while a busy machine can stretch a start past a
	// call's deadline without anything being wrong.
	StartTimeout time.Duration
	// Pool is how many started guests wait for input. Default 2; negative: none, every
	// call starts its own.
	Pool int
	// Concurrency caps the guests running calls at once; further calls wait for a turn.
	// Default GOMAXPROCS.
	Concurrency int
	// Module replaces the embedded guest. For tests of the host against misbehaving guests.
	Module []byte
}

const (
	defaultMemoryLimit = 32 << 20
	defaultTimeout     = 2 * time.Second
	defaultStart       = 30 * time.Second
	defaultPool        = 2
	wasmPageSize       = 64 << 10
	maxMemoryPages     = 1 << 16
)

// Sandbox runs operations in guest instances. Its methods are safe for concurrent use.
type Sandbox struct {
	rt       wazero.Runtime
	cache    wazero.CompilationCache
	compiled wazero.CompiledModule
	modCfg   wazero.ModuleConfig // what every instance gets, before its own stdio
	timeout  time.Duration
	startIn  time.Duration // the start deadline

	// ctx is the parent of every instance's context; Close cancels it with ErrClosed.
	ctx    context.Context
	cancel context.CancelCauseFunc

	sem   chan struct{}  // one token per running call
	quiet chan struct{}  // signaled when the last running call ends
	idle  chan *instance // started instances waiting for input
	slots chan struct{}  // one token per instance in idle or being started for it

	mu        sync.Mutex
	closed    bool
	calls     sync.WaitGroup // calls in progress
	instances sync.WaitGroup // instance goroutines
	refilling sync.WaitGroup // the pool's refill goroutine
	finished  chan struct{}  // closed when Close has released everything
}

// New compiles the guest and starts the pool. It starts one instance before returning,
// so that a guest that cannot start under these options is reported here rather than by
// every call.
func New(ctx context.Context, opts Options) (*Sandbox, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32((opts.MemoryLimit + wasmPageSize - 1) / wasmPageSize))
	var cache wazero.CompilationCache
	if opts.CacheDir != "" {
		if cache, err = wazero.NewCompilationCacheWithDir(opts.CacheDir); err != nil {
			return nil, fmt.Errorf("sandbox: compilation cache: %w", err)
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	fail := func(err error) (*Sandbox, error) {
		_ = rt.Close(context.Background())
		if cache != nil {
			_ = cache.Close(context.Background())
		}
		return nil, err
	}
	// WASI only: no file system, no network, no environment is configured for the guest.
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return fail(fmt.Errorf("sandbox: WASI: %w", err))
	}
	compiled, err := rt.CompileModule(ctx, opts.Module)
	if err != nil {
		return fail(fmt.Errorf("sandbox: compiling the guest: %w", err))
	}

	s := &Sandbox{
		rt:       rt,
		cache:    cache,
		compiled: compiled,
		modCfg:   moduleConfig(),
		timeout:  opts.Timeout,
		startIn:  opts.StartTimeout,
		sem:      make(chan struct{}, opts.Concurrency),
		quiet:    make(chan struct{}, 1),
		finished: make(chan struct{}),
	}
	// The instances' context is not New's: it must outlive this call.
	s.ctx, s.cancel = context.WithCancelCause(context.Background())

	first, err := s.startReady(ctx)
	if err != nil {
		s.cancel(ErrClosed)
		s.instances.Wait()
		return fail(fmt.Errorf("sandbox: starting the guest: %w", err))
	}
	if opts.Pool > 0 {
		s.idle = make(chan *instance, opts.Pool)
		s.slots = make(chan struct{}, opts.Pool)
		s.slots <- struct{}{}
		s.idle <- first
		s.refilling.Add(1)
		go s.refill()
	} else {
		first.drop(ErrClosed)
	}
	return s, nil
}

// Pooled reports how many started guests wait for input and how many the pool holds when
// full. While the two differ, guests are being started in the background (after New, or after
// a call took one), each taking several MiB of memory.
func (s *Sandbox) Pooled() (waiting, size int) { return len(s.idle), cap(s.idle) }

// moduleConfig gives the guest nothing but stdio, clocks and randomness: no files, no
// environment, no network (WASI has none; the host module provides no sockets).
func moduleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		// Unnamed, so that many instances of the module can run at once.
		WithName("").
		WithArgs("guest").
		// Real clocks keep the Go runtime's scheduler and GC pacing sane. Sleep stays
		// wazero's default no-op: a guest can never park a host thread in a sleep that
		// its deadline could not interrupt.
		WithSysWalltime().
		WithSysNanotime().
		// Unpredictable map seeds inside the guest, as in any Go program.
		WithRandSource(rand.Reader)
}

func withDefaults(o Options) (Options, error) {
	if o.MemoryLimit == 0 {
		o.MemoryLimit = defaultMemoryLimit
	}
	if o.MemoryLimit < 0 || o.MemoryLimit > maxMemoryPages*wasmPageSize {
		return o, fmt.Errorf("sandbox: memory limit %d is outside 1 byte to 4 GiB", o.MemoryLimit)
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStart
	}
	if o.Pool == 0 {
		o.Pool = defaultPool
	}
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.GOMAXPROCS(0)
	}
	if o.Module == nil {
		o.Module = guestWasm
	}
	return o, nil
}

// Close stops the pool, ends the calls in progress (they return ErrClosed) and releases
// the runtime. It returns ctx's error if ctx ends first; the release then finishes in the
// background. Calling it again waits for the same release.
func (s *Sandbox) Close(ctx context.Context) error {
	s.mu.Lock()
	first := !s.closed
	s.closed = true
	s.mu.Unlock()
	if first {
		s.cancel(ErrClosed)
		go s.release()
	}
	select {
	case <-s.finished:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release waits for everything started to end, in the order that guarantees nothing new
// starts behind it, then closes the runtime.
func (s *Sandbox) release() {
	s.refilling.Wait()
	// Calls may still take from idle, so drain without blocking: each instance goes
	// either to a call (which sees ErrClosed) or to this loop.
drain:
	for {
		select {
		case inst := <-s.idle:
			inst.drop(ErrClosed)
		default:
			break drain
		}
	}
	s.calls.Wait()
	s.instances.Wait()
	_ = s.rt.Close(context.Background())
	if s.cache != nil {
		_ = s.cache.Close(context.Background())
	}
	close(s.finished)
}

// refill keeps the pool full: whenever a slot is free it starts an instance and, once the
// guest is up and waiting for input, puts it in idle.
//
// It starts one only while no call is running. A start competing with the call that took
// the last instance would slow that call by about what the pool saved it on a small
// machine; between calls it costs nobody. Under steady overlapping load the pool stays
// empty and calls start their own instances, which is all the cores can do anyway.
func (s *Sandbox) refill() {
	defer s.refilling.Done()
	for {
		select {
		case s.slots <- struct{}{}:
		case <-s.ctx.Done():
			return
		}
		for len(s.sem) > 0 {
			select {
			case <-s.quiet:
			case <-s.ctx.Done():
				<-s.slots
				return
			}
		}
		inst, err := s.startReady(s.ctx)
		if err != nil {
			<-s.slots
			// A guest that failed to start (the machine is out of memory, say) would
			// fail again at once: wait before the next try instead of spinning a core.
			// Calls meanwhile start their own instances and report the error.
			select {
			case <-time.After(s.timeout):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		s.idle <- inst
	}
}

// take returns an instance ready for input: one from the pool if one is waiting, else a
// fresh one.
func (s *Sandbox) take(ctx context.Context) (*instance, error) {
	select {
	case inst := <-s.idle: // a nil idle (no pool) is never ready
		<-s.slots
		return inst, nil
	default:
		return s.startReady(ctx)
	}
}
