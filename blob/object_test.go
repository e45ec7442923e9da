package blob

import (
	"bytes"
	"io"
	"testing"
)

// Seek must not touch the bucket, and a read must reuse the open range read when it
// continues where that one is: http.ServeContent seeks to the end and back before every
// answer, and a HEAD or a 304 must cost no read at all.
func TestObjectReadsLazily(t *testing.T) {
	b, err := Open(t.Context(), "mem://", "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data := bytes.Repeat([]byte("0123456789"), 100)
	if _, err := b.Put(t.Context(), "k", bytes.NewReader(data), "text/plain"); err != nil {
		t.Fatal(err)
	}
	o, err := b.Open(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()

	o.Seek(0, io.SeekEnd)
	o.Seek(0, io.SeekStart)
	if o.r != nil {
		t.Fatal("Seek opened a read")
	}
	read := func(n int) {
		t.Helper()
		buf := make([]byte, n)
		if _, err := io.ReadFull(o, buf); err != nil {
			t.Fatal(err)
		}
	}
	read(10)
	first := o.r
	if first == nil || o.rpos != 10 {
		t.Fatalf("after reading 10 bytes: reader %v at %d", first, o.rpos)
	}
	o.Seek(500, io.SeekStart)
	o.Seek(10, io.SeekStart) // back where the read is: nothing to reopen
	read(5)
	if o.r != first {
		t.Error("a read continuing the open one opened another")
	}
	o.Seek(700, io.SeekStart)
	read(5)
	if o.r == first || o.rpos != 705 {
		t.Errorf("a read elsewhere did not open a new range read at 700 (at %d)", o.rpos)
	}
}
