package web_test

import (
	"net/http"
	"testing"
	"time"

	"hearth/web"
	"hearth/web/webtest"
)

// The HTTP server every listener uses (the binary's and the tests'): net/http's HTTP/1.1,
// HTTP/2 over TLS and h2c on one port; request headers within 10 s, idle keep-alive
// connections closed after 2 minutes (HTTP/2 takes the same idle timeout), no whole-request
// timeout (streams and uploads last; their bodies have deadlines of their own, see
// TestTricklingCallBodyIsCutOff, and every write one too, see TestZeroWindowStreamIsEndedWithin30s);
// an HTTP/2 connection whose client takes nothing for the write timeout is closed.
func TestHTTPServerTimeouts(t *testing.T) {
	t.Parallel()
	srv := web.NewHTTPServer(http.NotFoundHandler(), webtest.Logger(), 0)
	if srv.ReadHeaderTimeout != 10*time.Second || srv.IdleTimeout != 2*time.Minute || srv.ReadTimeout != 0 || srv.WriteTimeout != 0 {
		t.Fatalf("header %s, idle %s, read %s, write %s", srv.ReadHeaderTimeout, srv.IdleTimeout, srv.ReadTimeout, srv.WriteTimeout)
	}
	if p := srv.Protocols; p == nil || !p.HTTP1() || !p.HTTP2() || !p.UnencryptedHTTP2() {
		t.Fatalf("protocols %v: want HTTP/1.1, HTTP/2 and h2c", p)
	}
	if h2 := srv.HTTP2; h2 == nil || h2.WriteByteTimeout != 30*time.Second || h2.MaxConcurrentStreams != 250 {
		t.Fatalf("HTTP/2: %+v", h2)
	}
}
