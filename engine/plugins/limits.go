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
//   - Memory: while a run is under way, a watchdog samples the Go heap every heapEvery. When it
//     has grown by more than the heap limit since the run began, the watchdog collects garbage
//     and measures again; if what is still live has grown by more than the limit, the run is
//     interrupted. Only then is the run charged, so garbage (the plugin's or the server's)
//     never stops a plugin. To make the growth attributable, JavaScript runs one plugin at a
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

// run runs fn, which runs JavaScript on vm, on the calling goroutine, which holds the turn,
// within limit of time and the heap limit. what names the run in errors ("the top level",
// "hook message"). When the run is abandoned, the watchdog gives the turn back and calls
// onAbandon, and run returns errAbandoned once fn finally returns: the caller no longer holds
// the turn then. Otherwise run returns fn's error, or a *limitError when a limit stopped it.
func (r *runner) run(vm *goja.Runtime, what string, limit time.Duration, onAbandon func(), fn func() error) error {
	w := &watch{r: r, vm: vm, what: what, limit: limit, onAbandon: onAbandon, done: make(chan struct{})}
	w.base = heapObjects()
	w.next = w.base + r.heapLimit
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
		return w.stopped
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if le, ok := ie.Value().(*limitError); ok {
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
				// Garbage: measure again once as much more has been allocated.
				w.next = live + w.r.heapLimit
			}
		}
	}
}

func (w *watch) interrupt(e *limitError) {
	w.stopped = e
	w.vm.Interrupt(e)
}

// heapObjects is the bytes of heap objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
