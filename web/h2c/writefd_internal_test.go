//go:build unix

package h2c

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestWriteFD: writeFD writes to a socket without waiting: what it writes arrives, a full
// socket answers EAGAIN having taken nothing more, and a socket whose peer reset it answers
// an error.
func TestWriteFD(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	fd, ok := socketOf(server)
	if !ok {
		t.Fatal("no descriptor for a TCP connection")
	}
	write := func(b []byte) (int, error) { return writeFD(fd, b) }

	if n, err := write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("writing 5 bytes: %d, %v", n, err)
	}
	got := make([]byte, 5)
	if _, err := io.ReadFull(client, got); err != nil || string(got) != "hello" {
		t.Fatalf("the client read %q, %v", got, err)
	}

	// Nobody reads: the socket fills, within 64 MiB on any kernel's buffers.
	chunk := make([]byte, 64<<10)
	full := false
	for range 1024 {
		n, err := write(chunk)
		if errors.Is(err, syscall.EAGAIN) {
			if n != 0 {
				t.Fatalf("EAGAIN with %d bytes written", n)
			}
			full = true
			break
		}
		if err != nil {
			t.Fatalf("filling the socket: %v", err)
		}
	}
	if !full {
		t.Fatal("64 MiB written to a socket nobody reads, without EAGAIN")
	}

	// The client goes with a reset: the next writes fail.
	client.(*net.TCPConn).SetLinger(0)
	client.Close()
	var werr error
	for range 100 {
		if _, werr = write([]byte("after")); werr != nil && !errors.Is(werr, syscall.EAGAIN) {
			break
		}
		// The reset may not have been handled yet, or the socket is still full.
		time.Sleep(10 * time.Millisecond)
	}
	if !errors.Is(werr, syscall.ECONNRESET) && !errors.Is(werr, syscall.EPIPE) {
		t.Fatalf("writing to a socket whose peer reset it: %v, want ECONNRESET or EPIPE", werr)
	}
}
