package web

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestConnectionsPerAddressAreCapped: one client address may have MaxConnsPerAddr connections
// open (256 by default; 4 here). One more is closed as it opens, before a byte is read from
// it; the others are served; once one closes, a new one is served again.
func TestConnectionsPerAddressAreCapped(t *testing.T) {
	t.Parallel()
	// The test's connections come from loopback, which is not capped otherwise (a reverse
	// proxy on the same host).
	s, base := serveInternal(t, Config{MaxConnsPerAddr: 4}, func(s *Server) { s.conns.local = true })
	addr := strings.TrimPrefix(base, "http://")
	dial := func() net.Conn {
		t.Helper()
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	healthy := func(c net.Conn) error {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: hearth.test\r\n\r\n"); err != nil {
			return err
		}
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	waitCount := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); s.conns.count("127.0.0.1") != n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections counted, want %d", s.conns.count("127.0.0.1"), n)
			}
		}
	}
	var open []net.Conn
	for range 4 {
		open = append(open, dial())
	}
	waitCount(4)
	over := dial()
	over.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := over.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the fifth connection: read %d bytes, %v; want it closed", n, err)
	}
	for i, c := range open {
		if err := healthy(c); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	open[0].Close()
	waitCount(3)
	if err := healthy(dial()); err != nil {
		t.Fatalf("a connection once one closed: %v", err)
	}
}
