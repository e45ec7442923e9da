package web_test

import (
	"net/http"
	"testing"
	"time"

	"hearth/web"
	"hearth/web/webtest"
)

// The HTTP server every listener uses (the binary's and the tests'): request headers within
// 10 s, idle keep-alive connections closed after 2 minutes (HTTP/2 takes the same idle
// timeout), no whole-request timeout (streams and uploads last; their bodies have deadlines
// of their own, see TestTricklingCallBodyIsCutOff).
func TestHTTPServerTimeouts(t *testing.T) {
	srv := web.NewHTTPServer(http.NotFoundHandler(), webtest.Logger()).HTTP
	if srv.ReadHeaderTimeout != 10*time.Second || srv.IdleTimeout != 2*time.Minute || srv.ReadTimeout != 0 || srv.WriteTimeout != 0 {
		t.Fatalf("header %s, idle %s, read %s, write %s", srv.ReadHeaderTimeout, srv.IdleTimeout, srv.ReadTimeout, srv.WriteTimeout)
	}
}
