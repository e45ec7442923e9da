package plugins

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// The runner runs JavaScript under the limits. goja stops a script only where it checks for
// Interrupt (between instructions), has no memory limit, and cannot stop a goroutine, so:
//
//   - Time: a timer interrupts the run at its limit (500 ms a hook, 1 s the top level).
//   - Memory: every step of a script that can allocate much at once (a string made by +, a
//     template, a built-in that builds a string or an array, JSON, a regular expression's
//     captures, a spread) is bounded in size (harden.go) and charged to the run's meter
//     before it allocates, on the script's goroutine: past chargeEvery bytes charged, the
//     meter looks at the heap, and when the step would take it more than the heap limit past
//     where it was when the run began, it collects garbage there and then (the script waits)
//     and measures again; if what is live and the step would still pass the limit, the run is
//     stopped before the step allocates. So a run is stopped before it passes its limit, not a
//     sampling period later: a script that doubles a string ran from 37 MB to 952 MB of RSS
//     before a second sampler stopped it. The rest (objects and arrays grown an element at a
//     time) grows the heap by small steps, which a watchdog samples every heapEvery while a
//     run is under way, with the same rule. Only what is live is charged, so garbage (the
//     plugin's or the server's) never stops a plugin. To make the growth attributable, JavaScript runs one plugin at a
//     time (the turn): on the 1-vCPU machine Hearth targets, plugins could not run in parallel
//     anyway, and it keeps all of them to one core on a bigger one. A plugin holds the turn
//     for a slice of time (turnSlice) or one run, whichever is longer, and then hands it to the
//     plugin that has waited longest: one slow plugin cannot make a quick one fall behind.
//   - A native function that does not return when interrupted (one the hardening missed): the
//     run is abandoned grace after its deadline: the plugin is stopped, its turn given back so
//     that the others go on, and its goroutine left to finish on its own and exit.
//
// A run stopped by a limit stops its plugin: a runtime interrupted mid-hook holds whatever
// half-done state the hook left.

const (
	// heapEvery is how often the watchdog samples the heap while a run is under way.
	heapEvery = 2 * time.Millisecond
	// abandonGrace is how long after its deadline a run that ignored Interrupt is abandoned.
	abandonGrace = time.Second
	// turnSlice is how long a plugin with events waiting keeps the turn for more of them.
	turnSlice = 20 * time.Millisecond
)

// limitError is why a limit stopped a run; it becomes the plugin's error.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// errAbandoned is returned by a run that was abandoned (the plugin is stopped already).
var errAbandoned = errors.New("the run was abandoned")

type runner struct {
	// turn holds one token: whoever has it runs JavaScript.
	turn      chan struct{}
	heapLimit uint64
	// collect says the last run was stopped by a limit: its plugin is stopped, and what it
	// held (up to a heap limit of it) is garbage now, collected before the next run measures
	// where it begins (runBase). Read and written by whoever holds the turn.
	collect bool
}

func newRunner(heapLimit uint64) *runner {
	r := &runner{turn: make(chan struct{}, 1), heapLimit: heapLimit}
	r.turn <- struct{}{}
	return r
}

// acquire waits for the turn; release gives it back. Waiting goroutines get it in the order
// they asked (a channel hands a value to its longest-waiting receiver).
func (r *runner) acquire() { <-r.turn }
func (r *runner) release() { r.turn <- struct{}{} }

// run runs fn, which runs JavaScript in sb, on the calling goroutine, which holds the turn,
// within limit of time and the heap limit. what names the run in errors ("the top level",
// "hook message"). When the run is abandoned, the watchdog gives the turn back and calls
// onAbandon, and run returns errAbandoned once fn finally returns: the caller no longer holds
// the turn then. Otherwise run returns fn's error, or a *limitError when a limit stopped it.
func (r *runner) run(sb *sandbox, what string, limit time.Duration, onAbandon func(), fn func() error) error {
	vm := sb.vm
	w := &watch{r: r, vm: vm, what: what, limit: limit, onAbandon: onAbandon, done: make(chan struct{})}
	w.base = runBase(r.heapLimit, r.collect)
	r.collect = false
	w.next = w.base + r.heapLimit
	sb.meter = meter{vm: vm, what: what, limit: r.heapLimit, base: w.base, next: w.base + r.heapLimit}
	defer func() { sb.meter = meter{} }()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.loop()
	}()
	err := fn()
	close(w.done)
	wg.Wait()
	if w.abandoned {
		return errAbandoned
	}
	if w.stopped != nil {
		// Whatever fn returned, a limit stopped it (or it finished in the same instant).
		r.collect = true
		return w.stopped
	}
	if sb.meter.stopped != nil {
		r.collect = true
		return sb.meter.stopped
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if le, ok := ie.Value().(*limitError); ok {
			r.collect = true
			return le
		}
	}
	return err
}

// watch is the watchdog of one run.
type watch struct {
	r         *runner
	vm        *goja.Runtime
	what      string
	limit     time.Duration
	onAbandon func()
	done      chan struct{}
	// base is the heap when the run began; next is the heap at which the watchdog measures.
	base, next uint64
	// Set by the watchdog before done is closed, read by run after wg.Wait.
	stopped   *limitError
	abandoned bool
}

func (w *watch) loop() {
	tick := time.NewTicker(heapEvery)
	defer tick.Stop()
	deadline := time.NewTimer(w.limit)
	defer deadline.Stop()
	interrupted := false
	for {
		select {
		case <-w.done:
			return
		case <-deadline.C:
			if !interrupted {
				w.interrupt(&limitError{fmt.Sprintf("%s ran longer than %s", w.what, w.limit)})
				interrupted = true
				deadline.Reset(abandonGrace)
				continue
			}
			// It did not stop: give the turn back and leave it.
			w.abandoned = true
			w.r.release()
			w.onAbandon()
			return
		case <-tick.C:
			if interrupted {
				continue
			}
			if h := heapObjects(); h > w.next {
				runtime.GC()
				live := heapObjects()
				if live > w.base && live-w.base > w.r.heapLimit {
					w.interrupt(&limitError{fmt.Sprintf("%s used more than %d MB of memory", w.what, w.r.heapLimit>>20)})
					interrupted = true
					deadline.Reset(abandonGrace)
					continue
				}
				// Garbage: measure again halfway from here to the limit.
				w.next = nextCheck(w.base, w.r.heapLimit, live)
			}
		}
	}
}

func (w *watch) interrupt(e *limitError) {
	w.stopped = e
	w.vm.Interrupt(e)
}

// nextCheck is the heap at which to collect and measure again after a collection found live
// within the limit: halfway from there to the limit (and at least a MB on), so that the heap
// passes the limit by no more than the growth between two looks, while a run that only makes
// garbage is collected about as often as the runtime would collect it anyway.
func nextCheck(base, limit, live uint64) uint64 {
	room := uint64(0)
	if live < base+limit {
		room = base + limit - live
	}
	return live + max(room/2, 1<<20)
}

// heapObjects is the bytes of heap objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// runBase is the heap a run's growth is measured from. It is the heap's objects as the run
// begins, garbage included, unless there is much garbage: the last run was stopped by a limit
// (collect), or the heap is more than half a limit beyond what the last collection found
// live. Then garbage is collected first. Otherwise the garbage a run left (a plugin
// stopped at its limit leaves up to a limit of it) would count as the next run's start, and
// each run could take the heap a limit further than the one before.
func runBase(limit uint64, collect bool) uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	heap, live := s[0].Value.Uint64(), s[1].Value.Uint64()
	if collect || heap > live+limit/2 {
		runtime.GC()
		heap = heapObjects()
	}
	return heap
}

// chargeEvery is how many bytes the steps of a run may charge before the meter looks at the
// heap: reading it costs about a microsecond, and steps smaller than this are where the
// watchdog's sampling is soon enough. stepCost is charged for every step besides what it
// makes: a loop of small steps makes objects around them (the array that keeps them, the
// object that holds them) that no step is charged for.
const (
	chargeEvery = 4 << 20
	stepCost    = 256
)

// meter is the heap limit of a run, kept by the steps that can allocate much at once (see the
// top of this file). It belongs to the run's goroutine: run sets it before the script starts
// and clears it after; outside a run it charges nothing.
type meter struct {
	vm    *goja.Runtime
	what  string
	limit uint64
	// base is the heap when the run began; next is the heap at which a step collects
	// garbage to measure.
	base, next uint64
	pending    uint64
	stopped    *limitError
}

// charge is called before a step that may allocate up to n bytes at once. When the step could
// take the heap past the limit, it collects garbage and measures what is live; if the step
// would still pass the limit, it interrupts the run and reports false: the step must not
// allocate then (its caller throws, and the interrupt ends the run at its next instruction,
// whatever the script catches).
func (m *meter) charge(n uint64) bool {
	if m.base == 0 || m.stopped != nil {
		return m.stopped == nil
	}
	m.pending += n + stepCost
	if m.pending < chargeEvery {
		return true
	}
	m.pending = 0
	if heapObjects()+n <= m.next {
		return true
	}
	runtime.GC()
	if live := heapObjects(); live+n <= m.base+m.limit {
		m.next = nextCheck(m.base, m.limit, live)
		return true
	}
	m.stopped = &limitError{fmt.Sprintf("%s used more than %d MB of memory", m.what, m.limit>>20)}
	m.vm.Interrupt(m.stopped)
	return false
}
