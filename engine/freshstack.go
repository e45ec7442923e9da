package engine

import "runtime"

// RunOnFreshStack runs fn on a new goroutine and waits for it; a panic in fn goes on in the caller. A
// long-lived goroutine that does deep work keeps the stack that work needed while it waits
// (the runtime halves it at a garbage collection only when under a quarter is in use), so on
// a server with thousands of mostly idle streams the work is done on goroutines that end,
// and the stream's own goroutine stays small.
func RunOnFreshStack(fn func() error) error {
	var err error
	var p any
	finished, panicked := false, false
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if !finished {
				p, panicked = recover(), true
			}
		}()
		err = fn()
		finished = true
	}()
	<-done
	if panicked {
		if p == nil {
			// fn called runtime.Goexit (t.FailNow in a test's send): end this goroutine too.
			runtime.Goexit()
		}
		panic(p)
	}
	return err
}
