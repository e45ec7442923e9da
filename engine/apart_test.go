package engine

import (
	"errors"
	"testing"
)

// TestApart: Apart returns what fn returns and carries a panic over to the caller.
func TestApart(t *testing.T) {
	want := errors.New("x")
	if err := Apart(func() error { return want }); err != want {
		t.Fatalf("Apart returned %v", err)
	}
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v", p)
		}
	}()
	Apart(func() error { panic("boom") })
	t.Fatal("the panic did not reach the caller")
}
