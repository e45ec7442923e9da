package engine

import (
	"errors"
	"testing"
)

// TestRunOnFreshStack: RunOnFreshStack returns what fn returns and carries a panic over to the caller.
func TestRunOnFreshStack(t *testing.T) {
	want := errors.New("x")
	if err := RunOnFreshStack(func() error { return want }); err != want {
		t.Fatalf("RunOnFreshStack returned %v", err)
	}
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v", p)
		}
	}()
	RunOnFreshStack(func() error { panic("boom") })
	t.Fatal("the panic did not reach the caller")
}
