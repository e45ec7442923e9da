package sandbox

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// Many calls at once, more than the concurrency limit and the pool, all get their own
// answers.
func TestInspectInParallel(t *testing.T) {
	s := sharedSandbox(t)
	inputs := []struct {
		head []byte
		want Info
	}{
		{encodePNG(t, 31, 7), Info{"image/png", 31, 7}},
		{encodeJPEG(t, 33, 17), Info{"image/jpeg", 33, 17}},
		{fixture(t, "rotated.avif"), Info{"image/avif", 5, 7}},
		{fixture(t, "img.heic"), Info{"image/heic", 7, 5}},
		{[]byte("plain text"), Info{ContentType: "text/plain; charset=utf-8"}},
	}
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Go(func() {
			for i := range 2 {
				in := inputs[(g+i)%len(inputs)]
				got, err := s.Inspect(context.Background(), in.head)
				if err != nil || got != in.want {
					t.Errorf("got %+v, %v; want %+v", got, err, in.want)
				}
			}
		})
	}
	wg.Wait()
}

// Failing calls in parallel with good ones do not disturb them.
func TestFailuresInParallel(t *testing.T) {
	s := evilSandbox(t, Options{Timeout: time.Second})
	var wg sync.WaitGroup
	for g := range 8 {
		payload := []string{"ok", "panic", "loop", "alloc"}[g%4]
		wg.Go(func() {
			_, err := s.Inspect(context.Background(), []byte(payload))
			if (payload == "ok") != (err == nil) {
				t.Errorf("%s: got %v", payload, err)
			}
			if err != nil && !errors.Is(err, ErrUnreadable) {
				t.Errorf("%s: got %v, want ErrUnreadable", payload, err)
			}
		})
	}
	wg.Wait()
}

// Close ends the calls in progress, running or waiting for a turn, and every later call
// fails with ErrClosed.
func TestCloseWithCallsInFlight(t *testing.T) {
	s := evilSandbox(t, Options{Timeout: time.Minute, Concurrency: 2})
	const calls = 6
	errs := make(chan error, calls)
	for range calls {
		go func() {
			_, err := s.Inspect(context.Background(), []byte("loop"))
			errs <- err
		}()
	}
	// Wait until two guests are looping and the rest are queued for a turn.
	for len(s.sem) < cap(s.sem) {
		time.Sleep(time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range calls {
		if err := <-errs; !errors.Is(err, ErrClosed) {
			t.Errorf("call in flight: got %v, want ErrClosed", err)
		}
	}
	if _, err := s.Inspect(context.Background(), []byte("ok")); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: got %v, want ErrClosed", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Without a pool every call starts its own instance, and the answers are the same.
func TestWithoutPool(t *testing.T) {
	s := newSandbox(t, Options{Pool: -1})
	if s.idle != nil {
		t.Fatal("a pool was made")
	}
	want := Info{"image/png", 31, 7}
	for range 3 {
		if got := inspect(t, s, encodePNG(t, 31, 7)); got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
}
