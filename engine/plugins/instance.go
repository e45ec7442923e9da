package plugins

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"golang.org/x/time/rate"

	"hearth/engine"
	"hearth/engine/clock"
	svcv1 "hearth/proto/svc/v1"
)

// An instance is one load of a plugin: its sandbox, what its top level registered (hooks,
// timers, join questions), and the goroutine that owns the runtime. The goroutine runs the top
// level, reports how it went, and, once the host starts it, follows the event log as the
// plugin's bot and runs the hooks in log order, with the join requests and timer ticks that
// wait in between (join requests first: a person is waiting on them).

// errStopped interrupts a run when the host stops the plugin on purpose.
var errStopped = errors.New("the plugin was stopped")

type instance struct {
	h    *Host
	name string
	sb   *sandbox
	prog *goja.Program

	// hooks, timers and the top-level flag belong to the runtime's goroutine.
	hooks    map[string]goja.Callable
	timers   []*timer
	topLevel bool
	bot      engine.Caller
	follower *engine.Follower
	// holding says the goroutine holds the runner's turn.
	holding bool
	console *rate.Limiter
	dropped int

	// joinHook and messageHook say whether hooks has joinRequest and beforeMessage, for Join
	// and the sends on other goroutines.
	joinHook    atomic.Bool
	messageHook atomic.Bool
	// questions are read by Join on other goroutines.
	qmu       sync.Mutex
	questions []string

	jmu  sync.Mutex
	jobs []job
	// poke wakes serve from its wait for events: a job came in, or ctx ended.
	poke chan struct{}

	loaded     chan error // the top level's outcome, sent once
	reportOnce sync.Once
	begin      chan struct{}
	quit       chan struct{}
	quitOnce   sync.Once
	done       chan struct{}
	ctx        context.Context
	cancel     context.CancelFunc
	stopping   atomic.Bool
	abandoned  atomic.Bool
}

// job is a join request, a message to check or a timer tick waiting for the runtime.
type job struct {
	join    *joinJob
	message *messageJob
	tick    *timer
}

// load makes an instance of the plugin name and runs its top level; it returns the instance
// ready to start, or why it failed (nothing of it is left running then).
func (h *Host) load(name, src string) (*instance, error) {
	prog, err := compile(name+".js", src)
	if err != nil {
		return nil, err
	}
	sb, err := newSandbox(h.opts.MaxCallStack)
	if err != nil {
		return nil, err
	}
	// Date is the server's clock, which the times of the API (joined_at_ms, created_at_ms)
	// are on, and which the timers run on.
	sb.vm.SetTimeSource(h.clock.Now)
	p := &instance{
		h: h, name: name, sb: sb, prog: prog,
		hooks:   map[string]goja.Callable{},
		console: rate.NewLimiter(consoleRate, consoleBurst),
		poke:    make(chan struct{}, 1),
		loaded:  make(chan error, 1),
		begin:   make(chan struct{}),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	context.AfterFunc(p.ctx, p.wake)
	if err := p.install(); err != nil {
		return nil, err
	}
	go p.main()
	if err := <-p.loaded; err != nil {
		p.discard()
		return nil, err
	}
	return p, nil
}

// report delivers the top level's outcome once (from the goroutine, or the watchdog when it
// abandons the run).
func (p *instance) report(err error) { p.reportOnce.Do(func() { p.loaded <- err }) }

func (p *instance) main() {
	defer close(p.done)
	defer p.cancel()
	p.topLevel = true
	done := p.takeTurn()
	err := p.h.runner.run(p.sb, "the top level", p.h.opts.TopLevelLimit, p.abandonTopLevel, func() error {
		_, err := p.sb.vm.RunProgram(p.prog)
		return p.settle(err)
	})
	done()
	p.topLevel = false
	if err != nil {
		p.report(err)
		return
	}
	p.report(nil)
	select {
	case <-p.begin:
	case <-p.quit:
		return
	}
	p.serve()
}

func (p *instance) abandonTopLevel() {
	p.abandoned.Store(true)
	p.report(&limitError{fmt.Sprintf("the top level did not stop within %s of its time limit", abandonGrace)})
}

// start begins following the log as bot, from the newest event on.
func (p *instance) start(bot engine.Caller) error {
	f, err := p.h.eng.Follow(engine.FollowOptions{AfterSeq: p.h.eng.Seq(), Member: bot.ID, LoggedOnly: true})
	if err != nil {
		return err
	}
	p.bot, p.follower = bot, f
	close(p.begin)
	return nil
}

// discard ends an instance that was never started.
func (p *instance) discard() {
	p.quitOnce.Do(func() { close(p.quit) })
	p.cancel()
}

// stop ends the instance on purpose and waits for its goroutine (unless it was abandoned).
func (p *instance) stop() {
	p.stopping.Store(true)
	p.quitOnce.Do(func() { close(p.quit) })
	p.cancel()
	p.sb.vm.Interrupt(errStopped)
	if p.abandoned.Load() {
		return
	}
	select {
	case <-p.done:
	case <-time.After(p.h.opts.HookLimit + 2*abandonGrace):
		// It ignored the interrupt; the watchdog abandons it.
	}
}

// serve is the instance's life once started: hooks, join requests and timer ticks, until it is
// stopped or fails.
func (p *instance) serve() {
	defer p.follower.Close()
	defer p.stopTimers()
	for _, t := range p.timers {
		t.arm()
	}
	for !p.stopping.Load() {
		if p.runJob() {
			continue
		}
		ds, err := p.follower.Next()
		if err != nil {
			p.followEnded(err)
			return
		}
		if !p.deliverAll(ds) {
			return
		}
		if len(ds) > 0 {
			continue
		}
		if p.follower.Wait(p.poke) && p.ctx.Err() != nil {
			return
		}
	}
}

// deliverAll runs the hooks of a batch of events, holding the turn for a slice of time at a
// go, with the join requests that come in between; false when the instance must end.
func (p *instance) deliverAll(ds []engine.Delivery) bool {
	for i := 0; i < len(ds); {
		done := p.takeTurn()
		start := time.Now()
		for first := true; i < len(ds) && (first || time.Since(start) < turnSlice); first = false {
			for p.runJob() {
			}
			if p.stopping.Load() {
				done()
				return false
			}
			if behind := p.h.eng.Seq() - ds[i].Event().GetSeq(); behind > int64(p.h.opts.QueueLimit) {
				done()
				p.fail(&limitError{fmt.Sprintf("fell %d events behind the log; the limit is %d", behind, p.h.opts.QueueLimit)})
				return false
			}
			p.deliver(ds[i])
			i++
		}
		done()
	}
	return true
}

// takeTurn takes the runner's turn unless the instance holds it already, and returns what
// gives it back: nothing when it was held already, or when a run was abandoned (the watchdog
// gave it back then).
func (p *instance) takeTurn() (done func()) {
	if p.holding {
		return func() {}
	}
	p.h.runner.acquire()
	p.holding = true
	return func() {
		p.holding = false
		if !p.abandoned.Load() {
			p.h.runner.release()
		}
	}
}

// followEnded handles the end of the follower: the server closing or the bot deleted end the
// instance quietly; falling further behind than the hub keeps is a failure.
func (p *instance) followEnded(err error) {
	switch {
	case errors.Is(err, engine.ErrGone), errors.Is(err, engine.ErrClosed), errors.Is(err, context.Canceled):
	case errors.Is(err, engine.ErrResync):
		p.fail(&limitError{"fell further behind the log than the server keeps"})
	default:
		p.fail(&limitError{"reading the event log failed: " + err.Error()})
	}
}

// enqueue adds a job and wakes the goroutine.
func (p *instance) enqueue(j job) {
	p.jmu.Lock()
	if j.join != nil || j.message != nil {
		// Join requests and messages go before timer ticks: someone is waiting on them.
		i := sort.Search(len(p.jobs), func(i int) bool { return p.jobs[i].tick != nil })
		p.jobs = append(p.jobs, job{})
		copy(p.jobs[i+1:], p.jobs[i:])
		p.jobs[i] = j
	} else {
		p.jobs = append(p.jobs, j)
	}
	p.jmu.Unlock()
	p.wake()
}

// wake has serve look again at once: for jobs, and whether ctx ended (see poke).
func (p *instance) wake() {
	select {
	case p.poke <- struct{}{}:
	default:
	}
}

// runJob runs the first waiting job, if any.
func (p *instance) runJob() bool {
	p.jmu.Lock()
	if len(p.jobs) == 0 {
		p.jmu.Unlock()
		return false
	}
	j := p.jobs[0]
	p.jobs = p.jobs[1:]
	p.jmu.Unlock()
	switch {
	case j.join != nil:
		p.runJoin(j.join)
	case j.message != nil:
		p.runMessage(j.message)
	case j.tick != nil:
		j.tick.pending.Store(false)
		p.call("timer", j.tick.fn)
	}
	return true
}

// call runs fn (a hook, with the arguments args makes inside the run) under the hook limits and
// returns its result; ok is false when it failed (the failure is recorded or, for a limit,
// the plugin is stopped).
func (p *instance) call(what string, fn goja.Callable, args ...func() goja.Value) (result goja.Value, ok bool) {
	return p.callThen(what, fn, nil, args...)
}

// callThen is call that also reads the result with then inside the same run: reading a value a
// script made runs the script's code (a getter, a toString), which must be under the limits
// and must not throw outside the runtime (an exception there is a panic of the server).
func (p *instance) callThen(what string, fn goja.Callable, then func(goja.Value), args ...func() goja.Value) (result goja.Value, ok bool) {
	if p.stopping.Load() || p.abandoned.Load() {
		return nil, false
	}
	done := p.takeTurn()
	defer done()
	err := p.h.runner.run(p.sb, what, p.h.opts.HookLimit, p.abandonHook, func() error {
		vals := make([]goja.Value, len(args))
		for i, a := range args {
			vals[i] = a()
		}
		v, err := fn(goja.Undefined(), vals...)
		result = v
		if err != nil || then == nil {
			return p.settle(err)
		}
		_, err = p.guarded(func() { then(v) })
		return p.settle(err)
	})
	if err == nil {
		return result, true
	}
	var le *limitError
	var ie *goja.InterruptedError
	switch {
	case errors.Is(err, errAbandoned):
	case errors.As(err, &le):
		p.fail(le)
	case errors.As(err, &ie) && errors.Is(ie, errStopped):
	case p.stopping.Load():
	default:
		p.h.recordError(p, fmt.Sprintf("%s: %s", what, describe(err)))
	}
	return nil, false
}

// guarded runs fn, which runs the script's code, as a native function of the runtime, so that
// the script's exceptions and interrupts come back as an error rather than as a panic.
func (p *instance) guarded(fn func()) (goja.Value, error) {
	call, _ := goja.AssertFunction(p.sb.vm.ToValue(func(goja.FunctionCall) goja.Value {
		fn()
		return goja.Undefined()
	}))
	return call(goja.Undefined())
}

// settle turns an exception of the script into an error whose text is read now, inside the
// run. A *goja.Exception must never reach code outside a run: its Error reads the thrown
// value's toString or stack, and errors.As and errors.Is walk its Unwrap, which tests the
// value's prototype; all of these can be the script's own code, which may throw (a panic of
// the server outside the runtime) or loop (with no limit outside a run). Every other error
// (an interrupt, a stack overflow, the host's own) is the host's and passes as it is.
func (p *instance) settle(err error) error {
	ex, ok := err.(*goja.Exception)
	if !ok {
		return err
	}
	var msg string
	if _, rerr := p.guarded(func() { msg = ex.Error() }); rerr != nil {
		if _, script := rerr.(*goja.Exception); !script {
			return rerr // a limit interrupted it
		}
		msg = "the script threw a value whose text cannot be read"
	}
	return &scriptError{msg}
}

// scriptError is an exception of a script, as text.
type scriptError struct{ msg string }

func (e *scriptError) Error() string { return e.msg }

func (p *instance) abandonHook() {
	p.abandoned.Store(true)
	p.fail(&limitError{fmt.Sprintf("a hook did not stop within %s of its time limit", abandonGrace)})
}

// fail stops the instance for a limit and tells the host why.
func (p *instance) fail(err *limitError) {
	if p.stopping.Swap(true) {
		return
	}
	p.cancel()
	p.h.stopped(p, err.msg)
}

// describe is a script error as Plugin.error shows it: the message and where it was thrown.
func describe(err error) string {
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return "the call stack grew past its limit (" + so.Error() + ")"
	}
	return clip(err.Error(), errorMax)
}

// setQuestions replaces the plugin's join questions.
func (p *instance) setQuestions(qs []string) {
	p.qmu.Lock()
	p.questions = qs
	p.qmu.Unlock()
}

func (p *instance) joinQuestions() []string {
	p.qmu.Lock()
	defer p.qmu.Unlock()
	return p.questions
}

// deliver runs the hook an event calls for, if the plugin registered it. A plugin does not
// hear about its own messages or reactions.
func (p *instance) deliver(d engine.Delivery) {
	ev := d.Event()
	bot := p.bot.ID
	switch k := ev.GetKind().(type) {
	case *svcv1.Event_MessageCreated:
		if k.MessageCreated.GetAuthorId() != bot {
			p.hook("message", p.protoArg(k.MessageCreated))
		}
	case *svcv1.Event_MessageUpdated:
		if r := d.Reaction; r != nil {
			if r.GetMemberId() != bot {
				p.hook("reaction", p.jsonArg(map[string]any{
					"message":  jsonOf(k.MessageUpdated),
					"emoji":    r.GetEmoji(),
					"memberId": r.GetMemberId(),
					"removed":  r.GetRemoved(),
				}))
			}
		} else if k.MessageUpdated.GetAuthorId() != bot {
			p.hook("messageUpdated", p.protoArg(k.MessageUpdated))
		}
	case *svcv1.Event_MessageDeleted:
		if k.MessageDeleted.GetAuthorId() != bot {
			p.hook("messageDeleted", p.protoArg(k.MessageDeleted))
		}
	case *svcv1.Event_MemberJoined:
		if k.MemberJoined.GetId() != bot {
			p.hook("memberJoined", p.protoArg(k.MemberJoined))
		}
	case *svcv1.Event_MemberLeft:
		p.hook("memberLeft", func() goja.Value { return p.sb.vm.ToValue(k.MemberLeft) })
	}
}

func (p *instance) hook(name string, args ...func() goja.Value) {
	if fn := p.hooks[name]; fn != nil {
		p.call("hook "+name, fn, args...)
	}
}

// A timer of chat.every, on the host's clock. A tick waits as a job; while one waits, the
// next is skipped rather than queued, so a slow plugin does not pile ticks up.
type timer struct {
	p       *instance
	every   time.Duration
	fn      goja.Callable
	mu      sync.Mutex
	t       clock.Timer
	off     bool
	pending atomic.Bool
}

func (t *timer) arm() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.off {
		return
	}
	t.t = t.p.h.clock.AfterFunc(t.every, t.fire)
}

func (t *timer) fire() {
	if t.p.stopping.Load() {
		return
	}
	if !t.pending.Swap(true) {
		t.p.enqueue(job{tick: t})
	}
	t.arm()
}

func (p *instance) stopTimers() {
	for _, t := range p.timers {
		t.mu.Lock()
		t.off = true
		if t.t != nil {
			t.t.Stop()
		}
		t.mu.Unlock()
	}
}
