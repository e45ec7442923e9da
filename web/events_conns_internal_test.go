package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/lxzan/gws"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// TestWebSocketConnectionsCountAgainstTheAddressCap: a WebSocket's connection leaves net/http
// once it is upgraded (net/http counts it closed); it still counts among its address's
// connections until it closes, so that streams opened over WebSockets cannot get around the
// cap on connections per address.
func TestWebSocketConnectionsCountAgainstTheAddressCap(t *testing.T) {
	t.Parallel()
	s, base := serveInternal(t, Config{MaxConnsPerAddr: 2}, func(s *Server) { s.conns.local = true })
	ctx := context.Background()
	token, err := s.Issuer.Mint("alice", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	once := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if _, err := svcv1connect.NewServerServiceClient(once, base, connect.WithInterceptors(auth.WithBearer(token))).
		Join(ctx, connect.NewRequest(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	waitCount := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); s.conns.count("127.0.0.1") != n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections counted, want %d", s.conns.count("127.0.0.1"), n)
			}
		}
	}
	waitCount(0)
	open := func() *gws.Conn {
		t.Helper()
		c, _, err := gws.NewClient(gws.BuiltinEventHandler{}, &gws.ClientOption{
			Addr:          strings.Replace(base, "http", "ws", 1) + "/events",
			RequestHeader: http.Header{"Sec-Websocket-Protocol": {wsProto + ", " + wsBearer + token}},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.NetConn().Close() })
		go c.ReadLoop()
		return c
	}
	first := open()
	open()
	waitCount(2)
	over, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	over.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := over.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("a third connection beside two WebSockets: read %d bytes, %v; want it closed", n, err)
	}
	first.WriteClose(1000, nil)
	waitCount(1)
	open()
	waitCount(2)
}
