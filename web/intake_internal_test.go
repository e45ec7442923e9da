package web

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// bodyServer answers with how reading its body ended, after reading first bytes and then
// spending pause away from the body (as the upload handler does while the sandbox reads the
// head), with the upload's rule of progress in every window.
func bodyServer(t *testing.T, window, pause time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tb := &timedBody{src: r.Body, rc: http.NewResponseController(w), window: window, progress: uploadProgress, slow: errSlowUpload}
		tb.start()
		head := make([]byte, 1024)
		if _, err := io.ReadFull(tb, head); err != nil {
			fmt.Fprintf(w, "head: %v", err)
			return
		}
		time.Sleep(pause)
		n, err := io.Copy(io.Discard, tb)
		if errors.Is(err, errSlowUpload) {
			fmt.Fprint(w, "stalled")
			return
		}
		fmt.Fprintf(w, "read %d, %v", 1024+n, err)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// post sends a request declaring length bytes and sends sent of them, then reads the answer.
func post(t *testing.T, addr string, length, sent int) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: chat.test\r\nContent-Length: %d\r\n\r\n", length)
	if _, err := conn.Write(make([]byte, sent)); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// TestServerPauseIsNotTheClientsStall: an upload whose client sent every byte at once is read
// whole although the handler spent longer than the window away from it (the sandbox reading
// the head, slow to start on a busy machine); a client that stops sending is still cut off
// after the window. (Docs audit: README's `go test -race ./...` failed on a loaded machine
// with 408 "the body stalled" for a 16 MB upload sent at once, as the first upload on fresh
// data waited for the sandbox to compile.)
func TestServerPauseIsNotTheClientsStall(t *testing.T) {
	t.Parallel()
	const window = time.Second
	addr := bodyServer(t, window, 2*window)
	if got := post(t, addr, 64<<10, 64<<10); got != "read 65536, <nil>" {
		t.Fatalf("a body sent whole, read after a pause of the server's: %q", got)
	}
	// A client that sends 2 KB of 64 and waits is the client's stall, pause or not.
	if got := post(t, addr, 64<<10, 2<<10); got != "stalled" {
		t.Fatalf("a body that stopped coming: %q", got)
	}
}
