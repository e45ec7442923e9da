package web

import (
	"net/http/httptest"
	"testing"
)

// flushCounter counts the flushes that reach the real writer.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

// TestHoldFlushes: while a stream holds flushes, Connect's per-message flushes do not reach
// the connection, the bytes are all there, and the first flush without the hold sends them.
func TestHoldFlushes(t *testing.T) {
	t.Parallel()
	rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	w := &answerWriter{ResponseWriter: rec}
	w.holdFlushes(true)
	for _, b := range []string{"one ", "two "} {
		w.Write([]byte(b))
		w.Flush()
	}
	if rec.flushes != 0 {
		t.Fatalf("%d flushes reached the connection while held", rec.flushes)
	}
	w.holdFlushes(false)
	w.Write([]byte("three"))
	w.Flush()
	if rec.flushes != 1 || rec.Body.String() != "one two three" {
		t.Fatalf("after the hold: %d flushes, body %q; want 1 and all three", rec.flushes, rec.Body.String())
	}
}
