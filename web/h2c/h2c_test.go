package h2c_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"hearth/web/h2c"
)

// serve starts a Server on a loopback port with handler h and returns it and its address; it
// is closed when the test ends.
func serve(t testing.TB, h http.Handler, change func(*http.Server)) (*h2c.Server, string) {
	t.Helper()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	if change != nil {
		change(srv)
	}
	s := h2c.New(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v", err)
		}
	})
	return s, ln.Addr().String()
}

// h2cClient speaks cleartext HTTP/2 only, and counts the connections it dials.
func h2cClient(dials *int) *http.Client {
	tr := &http.Transport{}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	var mu sync.Mutex
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		if dials != nil {
			*dials++
		}
		mu.Unlock()
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: tr}
}

func protoHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %v %v", r.Proto, r.TLS == nil, r.Context().Value(http.LocalAddrContextKey) != nil)
	})
}

func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	res, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s %v", url, res.StatusCode, b, err)
	}
	return string(b)
}

// One port serves both: a client with prior knowledge gets HTTP/2 (requests of one connection
// share it), any other HTTP/1.1, and the handler sees the same request either way.
func TestOnePortServesHTTP1AndH2C(t *testing.T) {
	_, addr := serve(t, protoHandler(), nil)
	dials := 0
	c := h2cClient(&dials)
	for range 3 {
		if got := get(t, c, "http://"+addr+"/"); got != "HTTP/2.0 true true" {
			t.Fatalf("over h2c the handler saw %q", got)
		}
	}
	if dials != 1 {
		t.Fatalf("three h2c requests dialled %d connections", dials)
	}
	if got := get(t, &http.Client{Transport: &http.Transport{}}, "http://"+addr+"/"); got != "HTTP/1.1 true true" {
		t.Fatalf("over HTTP/1.1 the handler saw %q", got)
	}
}

// A request shorter than the HTTP/2 preface is answered at once: the listener decides on the
// first byte that differs, it does not wait for 24 bytes.
func TestAShortHTTP1RequestIsAnsweredAtOnce(t *testing.T) {
	_, addr := serve(t, protoHandler(), nil)
	for _, req := range []string{"GET / HTTP/1.0\r\n\r\n", "P"} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(conn, req)
		if req == "P" {
			// "P" could still be the preface; "POST" is not.
			io.WriteString(conn, "OST / HTTP/1.0\r\nContent-Length: 0\r\n\r\n")
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		b, _ := io.ReadAll(res.Body)
		if string(b) != "HTTP/1.0 true true" {
			t.Fatalf("%q: answered %d %q", req, res.StatusCode, b)
		}
	}
}

// A client that sends a piece of the preface, or nothing, is closed after the header timeout,
// as net/http closes one that never finishes its request's head.
func TestASilentClientIsClosedAfterTheHeaderTimeout(t *testing.T) {
	_, addr := serve(t, protoHandler(), func(s *http.Server) { s.ReadHeaderTimeout = 200 * time.Millisecond })
	for _, sent := range []string{"", "PRI * HTTP/2"} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, sent)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		start := time.Now()
		n, err := conn.Read(make([]byte, 1))
		if n != 0 || err != io.EOF {
			t.Fatalf("after %q the server answered %d bytes, %v; want it to hang up", sent, n, err)
		}
		t.Logf("after %q: closed in %s", sent, time.Since(start).Round(time.Millisecond))
	}
}

// Shutdown lets a request in progress on an h2c connection finish, then the connection
// closes; new connections are refused meanwhile. The ConnState hook sees the connection
// from new to closed, as for the connections net/http serves.
func TestShutdownDrainsH2CConnections(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var states []http.ConnState
	s, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		io.WriteString(w, "finished")
	}), func(s *http.Server) {
		s.ConnState = func(c net.Conn, st http.ConnState) {
			mu.Lock()
			states = append(states, st)
			mu.Unlock()
		}
	})
	answered := make(chan string, 1)
	go func() {
		res, err := h2cClient(nil).Get("http://" + addr + "/")
		if err != nil {
			answered <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		answered <- string(b)
	}()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		conn.Close()
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a request in progress", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if got := <-answered; got != "finished" {
		t.Fatalf("the request in progress got %q", got)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []http.ConnState{http.StateNew, http.StateActive, http.StateIdle, http.StateClosed}
	if !slices.Equal(states, want) {
		t.Fatalf("the ConnState hook saw %v, want %v", states, want)
	}
}

// Close does not wait: it closes h2c connections with requests in progress.
func TestCloseClosesH2CConnections(t *testing.T) {
	started := make(chan struct{})
	ended := make(chan error, 1)
	s, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		ended <- r.Context().Err()
	}), nil)
	failed := make(chan error, 1)
	go func() {
		res, err := h2cClient(nil).Get("http://" + addr + "/")
		if err == nil {
			_, err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		failed <- err
	}()
	<-started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-failed; err == nil {
		t.Fatal("the request in progress succeeded after Close")
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the handler's context ended with %v", err)
	}
}
