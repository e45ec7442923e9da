package voice

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"hearth/engine/ratelimit"
)

// The media port: one UDP socket and one TCP listener on the same port number, shared by the
// ICE of every PeerConnection (pion's UDP and TCP muxes) and by the TURN server. Each packet
// (UDP) or connection (TCP) goes to one of them by its first bytes (RFC 7983's demultiplexing):
//   - UDP: ChannelData (first byte 64-79) is TURN's; a STUN message is TURN's unless it is a
//     Binding request carrying a USERNAME (an ICE connectivity check) or a Binding response or
//     indication (ICE's keepalives and answers); everything else (DTLS, SRTP) is ICE's.
//   - TCP: a connection that starts with a STUN header (the magic cookie at bytes 4-8) speaks
//     TURN over TCP; one that starts with an RFC 4571 length and then a STUN header (the
//     cookie at bytes 6-10) is ICE-TCP.
// The TURN server relays only to this server's own ICE, in process (relays.go): no relay
// port is opened, so the port is the only one voice needs.

// stunCookie is STUN's magic cookie (RFC 5389).
const stunCookie = 0x2112A442

// packetSize bounds one datagram: larger ones are cut (no WebRTC packet comes near it).
const packetSize = 1600

// packet is one datagram in flight between the port and a reader.
type packet struct {
	buf  [packetSize]byte
	n    int
	from netip.AddrPort
}

var packets = sync.Pool{New: func() any { return new(packet) }}

// pipe is a net.PacketConn fed by the port: what the ICE mux or the TURN server reads and
// writes through. Reads come from a bounded queue (a reader that falls behind loses
// datagrams, as a socket's buffer would); writes go through write.
type pipe struct {
	local  net.Addr
	in     chan *packet
	write  func(b []byte, to netip.AddrPort) (int, error)
	closed chan struct{}
	once   sync.Once
}

func newPipe(local net.Addr, queue int, write func([]byte, netip.AddrPort) (int, error)) *pipe {
	return &pipe{local: local, in: make(chan *packet, queue), write: write, closed: make(chan struct{})}
}

// deliver queues a datagram for the reader, or drops it when the queue is full; the pipe owns
// p from here on.
func (p *pipe) deliver(pkt *packet) {
	select {
	case p.in <- pkt:
	default:
		packets.Put(pkt)
	}
}

// deliverCopy queues a copy of b as a datagram from from.
func (p *pipe) deliverCopy(b []byte, from netip.AddrPort) {
	pkt := packets.Get().(*packet)
	pkt.n = copy(pkt.buf[:], b)
	pkt.from = from
	p.deliver(pkt)
}

// take copies a datagram into b and gives its packet back to the pool.
func (pkt *packet) take(b []byte) (int, netip.AddrPort) {
	n, from := copy(b, pkt.buf[:pkt.n]), pkt.from
	packets.Put(pkt)
	return n, from
}

// ReadFromAddrPort is ReadFrom without an allocation (pion's ice.AddrPortReaderWriter).
func (p *pipe) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	select {
	case pkt := <-p.in:
		n, from := pkt.take(b)
		return n, from, nil
	case <-p.closed:
		return 0, netip.AddrPort{}, io.EOF
	}
}

func (p *pipe) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := p.ReadFromAddrPort(b)
	if err != nil {
		return 0, nil, err
	}
	return n, net.UDPAddrFromAddrPort(from), nil
}

func (p *pipe) WriteToAddrPort(b []byte, to netip.AddrPort) (int, error) {
	select {
	case <-p.closed:
		return 0, net.ErrClosed
	default:
	}
	return p.write(b, unmap(to))
}

func (p *pipe) WriteTo(b []byte, addr net.Addr) (int, error) {
	ua, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, fmt.Errorf("not a UDP address: %v", addr)
	}
	return p.WriteToAddrPort(b, ua.AddrPort())
}

func (p *pipe) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *pipe) LocalAddr() net.Addr { return p.local }

// Deadlines are not kept: a read ends when the pipe closes, a write never waits.
func (p *pipe) SetDeadline(time.Time) error      { return nil }
func (p *pipe) SetReadDeadline(time.Time) error  { return nil }
func (p *pipe) SetWriteDeadline(time.Time) error { return nil }

// udpPort reads the UDP socket and hands each datagram to ICE or TURN.
type udpPort struct {
	conn   *net.UDPConn
	ice    *pipe
	turn   *pipe
	relays *relays
	done   chan struct{}
}

// ICE and TURN queues, in datagrams: ICE carries all the media (about 1,250 datagrams a second
// come in with 25 people talking), TURN only what relayed clients send.
const (
	iceQueue  = 2048
	turnQueue = 512
)

func newUDPPort(conn *net.UDPConn, rs *relays) *udpPort {
	u := &udpPort{conn: conn, relays: rs, done: make(chan struct{})}
	u.ice = newPipe(conn.LocalAddr(), iceQueue, u.writeICE)
	u.turn = newPipe(conn.LocalAddr(), turnQueue, u.writeOut)
	rs.ice = u.ice
	go u.read()
	return u
}

func (u *udpPort) read() {
	defer close(u.done)
	for {
		pkt := packets.Get().(*packet)
		n, from, err := u.conn.ReadFromUDPAddrPort(pkt.buf[:])
		if err != nil {
			packets.Put(pkt)
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		pkt.n, pkt.from = n, unmap(from)
		if forTURN(pkt.buf[:n]) {
			u.turn.deliver(pkt)
		} else {
			u.ice.deliver(pkt)
		}
	}
}

// writeICE sends what ICE writes: to a client, or to a relay of the TURN server (a virtual
// address, relays.go).
func (u *udpPort) writeICE(b []byte, to netip.AddrPort) (int, error) {
	if virtual(to.Addr()) {
		return u.relays.toClient(b, to)
	}
	return u.writeOut(b, to)
}

func (u *udpPort) writeOut(b []byte, to netip.AddrPort) (int, error) {
	return u.conn.WriteToUDPAddrPort(b, to)
}

func (u *udpPort) close() {
	u.conn.Close()
	<-u.done
	u.ice.Close()
	u.turn.Close()
}

// forTURN tells a datagram for the TURN server from one for ICE (RFC 7983).
func forTURN(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	switch {
	case b[0] >= 64 && b[0] <= 79:
		return true // ChannelData
	case b[0] > 3 || len(b) < 20 || binary.BigEndian.Uint32(b[4:8]) != stunCookie:
		return false // DTLS, SRTP and SRTCP
	}
	typ := binary.BigEndian.Uint16(b[0:2])
	method := typ&0x000F | (typ&0x00E0)>>1 | (typ&0x3E00)>>2
	class := (typ&0x0010)>>4 | (typ&0x0100)>>7
	if method != 0x001 {
		return true // Allocate, Refresh, Send, CreatePermission, ChannelBind
	}
	// A Binding: ICE's checks carry a USERNAME; a Binding request without one asks the TURN
	// server (as a STUN server) for the client's address. Responses and indications are ICE's.
	return class == 0 && !hasUsername(b)
}

// hasUsername reports whether a STUN message has a USERNAME attribute.
func hasUsername(b []byte) bool {
	end := 20 + int(binary.BigEndian.Uint16(b[2:4]))
	if end > len(b) {
		end = len(b)
	}
	for i := 20; i+4 <= end; {
		typ := binary.BigEndian.Uint16(b[i : i+2])
		n := int(binary.BigEndian.Uint16(b[i+2 : i+4]))
		if typ == 0x0006 {
			return true
		}
		i += 4 + (n+3)&^3
	}
	return false
}

// tcpPort accepts the TCP connections of the port and hands each to ICE or TURN.
type tcpPort struct {
	ln        net.Listener
	ice, turn *connQueue
	done      chan struct{}
	// open counts the connections open at once, in all and by client address (ratelimit's
	// AddrKey), whatever they turn out to be.
	mu     sync.Mutex
	open   int
	byAddr map[string]int
}

const (
	// tcpConns bounds the port's open TCP connections; tcpConnsPerAddr those of one client
	// address (an IPv6 address by its /64).
	tcpConns        = 1024
	tcpConnsPerAddr = 16
	// tcpFirstBytes is how long a new connection has to say what it is; tcpIdle how long an
	// open one may stay silent (ICE sends a consent check every 5 seconds, TURN clients refresh
	// their allocations, and media flows).
	tcpFirstBytes = 10 * time.Second
	tcpIdle       = time.Minute
)

func newTCPPort(ln net.Listener) *tcpPort {
	t := &tcpPort{ln: ln, done: make(chan struct{}), byAddr: map[string]int{}}
	t.ice = newConnQueue(ln.Addr())
	t.turn = newConnQueue(ln.Addr())
	go t.accept()
	return t
}

func (t *tcpPort) accept() {
	defer close(t.done)
	for {
		c, err := t.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		key := addrKey(c.RemoteAddr())
		if !t.take(key) {
			c.Close()
			continue
		}
		go t.classify(c, key)
	}
}

// take counts a new connection from key, or refuses it when the port or key is at its bound.
func (t *tcpPort) take(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open >= tcpConns || t.byAddr[key] >= tcpConnsPerAddr {
		return false
	}
	t.open++
	t.byAddr[key]++
	return true
}

func (t *tcpPort) release(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.open--
	if t.byAddr[key]--; t.byAddr[key] == 0 {
		delete(t.byAddr, key)
	}
}

// classify reads a new connection's first 10 bytes and hands it on.
func (t *tcpPort) classify(c net.Conn, key string) {
	pc := &peekedConn{Conn: c, release: func() { t.release(key) }}
	var head [10]byte
	c.SetReadDeadline(time.Now().Add(tcpFirstBytes))
	if _, err := io.ReadFull(c, head[:]); err != nil {
		pc.Close()
		return
	}
	c.SetReadDeadline(time.Time{})
	pc.head = head[:]
	switch {
	case binary.BigEndian.Uint32(head[4:8]) == stunCookie:
		t.turn.hand(pc)
	case binary.BigEndian.Uint32(head[6:10]) == stunCookie:
		t.ice.hand(pc)
	default:
		pc.Close()
	}
}

func (t *tcpPort) close() {
	t.ln.Close()
	<-t.done
	t.ice.Close()
	t.turn.Close()
}

// peekedConn is a connection whose first bytes were read already: they are read again first.
type peekedConn struct {
	net.Conn
	head    []byte
	release func()
	once    sync.Once
}

func (c *peekedConn) Read(b []byte) (int, error) {
	if len(c.head) > 0 {
		n := copy(b, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	c.Conn.SetReadDeadline(time.Now().Add(tcpIdle))
	return c.Conn.Read(b)
}

func (c *peekedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// connQueue is a net.Listener fed by the port's classifier.
type connQueue struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newConnQueue(addr net.Addr) *connQueue {
	return &connQueue{addr: addr, conns: make(chan net.Conn, 64), closed: make(chan struct{})}
}

// hand gives a connection to the listener's Accept, or closes it when the listener is closed
// or 64 connections already wait to be accepted.
func (q *connQueue) hand(c net.Conn) {
	select {
	case <-q.closed:
		c.Close()
	case q.conns <- c:
	default:
		c.Close()
	}
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.closed:
		return nil, net.ErrClosed
	}
}

func (q *connQueue) Close() error {
	q.once.Do(func() {
		close(q.closed)
		for {
			select {
			case c := <-q.conns:
				c.Close()
			default:
				return
			}
		}
	})
	return nil
}

func (q *connQueue) Addr() net.Addr { return q.addr }

// Listen takes addr's port for UDP and TCP alike: the media port. Port 0 picks one free for
// both.
func Listen(addr string) (*net.UDPConn, net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, err
	}
	for try := 0; ; try++ {
		uc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, nil, err
		}
		p := uc.LocalAddr().(*net.UDPAddr).Port
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err == nil {
			return uc.(*net.UDPConn), ln, nil
		}
		uc.Close()
		if port != "0" || try == 20 {
			return nil, nil, err
		}
	}
}

// addrKey is the key a client address is counted by (ratelimit.AddrKey).
func addrKey(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ratelimit.AddrKey(ta.IP.String())
	}
	return a.String()
}

// unmap turns an IPv4-mapped IPv6 address (from a dual-stack socket) into its IPv4 address.
func unmap(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}
