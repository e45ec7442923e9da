package web

import (
	"net"
	"net/http"
	"sync"

	"hearth/engine/ratelimit"
)

// maxConnsPerAddr is how many connections one client address may have open at once (an IPv6
// /64 counts as one, as every per-address limit counts). A browser opens a few (six at most
// over HTTP/1.1, one over HTTP/2), a household or an office behind one NAT some dozens; each
// connection holds buffers and a goroutine, and over HTTP/2 up to 250 streams.
const maxConnsPerAddr = 256

// connLimit caps the open connections per client address (Config.MaxConnsPerAddr), counted as
// they are accepted (http.Server.ConnState). Only the TCP peer is known then, so the client
// address is the peer's: connections from a trusted proxy (-trusted-proxy) carry many clients'
// requests and are not counted, nor are those from loopback and private addresses, where a
// reverse proxy on the same host or network connects from (set -trusted-proxy for it, so that
// the per-request limits see the clients). A connection over the cap is closed at once.
type connLimit struct {
	proxies proxies
	max     int
	// local counts loopback and private peers too (tests, whose clients are on loopback).
	local bool

	mu    sync.Mutex
	open  map[string]int
	conns map[net.Conn]string
}

// key is the address a connection counts for, "" when it is not counted.
func (l *connLimit) key(c net.Conn) string {
	a := peerAddr(c.RemoteAddr().String()).Unmap()
	if !a.IsValid() || l.proxies.trusted(a) {
		return ""
	}
	if !l.local && (a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast()) {
		return ""
	}
	return ratelimit.AddrKey(a.String())
}

// state is the http.Server's ConnState hook.
func (l *connLimit) state(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		key := l.key(c)
		if key == "" || l.max < 0 {
			return
		}
		l.mu.Lock()
		if l.open[key] >= l.max {
			l.mu.Unlock()
			c.Close()
			return
		}
		if l.open == nil {
			l.open, l.conns = map[string]int{}, map[net.Conn]string{}
		}
		l.open[key]++
		l.conns[c] = key
		l.mu.Unlock()
	case http.StateClosed:
		l.release(c)
	}
	// A hijacked connection (a WebSocket: GET /events) still counts, until its handler closes
	// it and calls release.
}

// release stops counting c; again does nothing.
func (l *connLimit) release(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if key, ok := l.conns[c]; ok {
		delete(l.conns, c)
		if l.open[key]--; l.open[key] <= 0 {
			delete(l.open, key)
		}
	}
}

// count is how many connections addr has open.
func (l *connLimit) count(addr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open[ratelimit.AddrKey(addr)]
}
