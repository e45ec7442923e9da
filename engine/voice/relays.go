package voice

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"

	"github.com/pion/turn/v5"
)

// The TURN server's relays never leave the process. A client behind NAT relays through TURN
// to one peer only: this server's own ICE. So each allocation gets a relay that is a pipe
// into the ICE side of the media port rather than a socket of its own: what the client sends
// to a peer arrives at ICE as a datagram from a virtual address, and what ICE writes to that
// address goes back through the allocation to the client. No relay port is opened (the media
// port is the only one voice needs), and the TURN server cannot be used to reach any other
// host: its relays lead nowhere else, and permissions are granted only for this server's own
// addresses.
//
// Virtual addresses come from ranges nothing real uses: 240.0.0.0/4 (reserved, RFC 1112) for
// IPv4 relays and 100::/64 (discard only, RFC 6666) for IPv6 ones. An allocation's relayed
// address (its relay candidate) is its first one; a client that relays to a second address
// of this server gets another, which ICE learns as a peer-reflexive candidate.

// relaysPerUser bounds the allocations of one TURN user (one member): a browser makes one per
// transport and ICE restart.
const relaysPerUser = 8

// routesPerRelay bounds the server addresses one relay sends to.
const routesPerRelay = 8

// relayQueue bounds the datagrams waiting for a relay's client.
const relayQueue = 256

type relays struct {
	// ice is where relays deliver what their clients send.
	ice  *pipe
	port uint16
	// own are this server's addresses: the only peers permitted.
	own func(netip.Addr) bool

	mu      sync.Mutex
	routes  map[netip.AddrPort]route // by virtual address
	next    uint32
	perUser map[string]int
}

// route is where a virtual address leads: a relay, and the server address its client sent to.
type route struct {
	r    *relayConn
	peer netip.AddrPort
}

func newRelays(port uint16, own func(netip.Addr) bool) *relays {
	return &relays{port: port, own: own, routes: map[netip.AddrPort]route{}, perUser: map[string]int{}}
}

// virtual reports whether an address is in the relays' ranges.
func virtual(a netip.Addr) bool {
	if a.Is4() {
		return a.As4()[0] >= 240
	}
	b := a.As16()
	return a.Is6() && b[0] == 0x01 && b[1] == 0x00 && b[2] == 0 && b[3] == 0 && b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0
}

// newAddr takes the next virtual address of a family. Called with rs.mu held.
func (rs *relays) newAddr(v6 bool) netip.AddrPort {
	for {
		rs.next++
		n := rs.next & 0x0FFFFFFF
		var a netip.Addr
		if v6 {
			var b [16]byte
			b[0], b[1] = 0x01, 0x00
			b[12], b[13], b[14], b[15] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
			a = netip.AddrFrom16(b)
		} else {
			a = netip.AddrFrom4([4]byte{0xF0 | byte(n>>24), byte(n >> 16), byte(n >> 8), byte(n)})
		}
		ap := netip.AddrPortFrom(a, rs.port)
		if _, used := rs.routes[ap]; !used && n != 0 {
			return ap
		}
	}
}

// allocate makes the relay of a new allocation.
func (rs *relays) allocate(network, user string) (*relayConn, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.perUser[user] >= relaysPerUser {
		return nil, fmt.Errorf("%s has %d relays already", user, relaysPerUser)
	}
	rs.perUser[user]++
	r := &relayConn{rs: rs, user: user, v6: network == "udp6", byPeer: map[netip.AddrPort]netip.AddrPort{}}
	r.addr = rs.newAddr(r.v6)
	r.pipe = newPipe(net.UDPAddrFromAddrPort(r.addr), relayQueue, r.toServer)
	return r, nil
}

// toClient hands what ICE writes to a virtual address to its relay, as from the server
// address the relay's client sent to.
func (rs *relays) toClient(b []byte, to netip.AddrPort) (int, error) {
	rs.mu.Lock()
	rt, ok := rs.routes[to]
	rs.mu.Unlock()
	if !ok {
		return len(b), nil // a relay that closed: the datagram is lost, as on a network
	}
	rt.r.deliverCopy(b, rt.peer)
	return len(b), nil
}

// relayConn is one allocation's relay: a net.PacketConn whose peer is this server's ICE. Its
// pipe holds what ICE sent the client (ReadFrom: the datagram, and the server address it came
// from).
type relayConn struct {
	*pipe
	rs   *relays
	user string
	v6   bool
	addr netip.AddrPort
	// byPeer maps the server addresses the client sent to onto their virtual addresses; guarded
	// by rs.mu.
	byPeer map[netip.AddrPort]netip.AddrPort
	once   sync.Once
}

// toServer gives ICE what the client sends to a server address (peer), from that address's
// virtual address: the pipe's writes (WriteTo).
func (r *relayConn) toServer(b []byte, peer netip.AddrPort) (int, error) {
	r.rs.mu.Lock()
	src, ok := r.byPeer[peer]
	if !ok {
		select {
		case <-r.closed:
			r.rs.mu.Unlock()
			return 0, net.ErrClosed
		default:
		}
		if len(r.byPeer) >= routesPerRelay {
			r.rs.mu.Unlock()
			return len(b), nil
		}
		src = r.addr
		if len(r.byPeer) > 0 {
			src = r.rs.newAddr(r.v6)
		}
		r.byPeer[peer] = src
		r.rs.routes[src] = route{r: r, peer: peer}
	}
	r.rs.mu.Unlock()
	r.rs.ice.deliverCopy(b, src)
	return len(b), nil
}

func (r *relayConn) Close() error {
	r.once.Do(func() {
		r.pipe.Close()
		r.rs.mu.Lock()
		for _, src := range r.byPeer {
			delete(r.rs.routes, src)
		}
		if r.rs.perUser[r.user]--; r.rs.perUser[r.user] <= 0 {
			delete(r.rs.perUser, r.user)
		}
		r.rs.mu.Unlock()
	})
	return nil
}

// relayGenerator gives the TURN server its relays (turn.RelayAddressGenerator).
type relayGenerator struct{ rs *relays }

func (g relayGenerator) Validate() error { return nil }

func (g relayGenerator) AllocatePacketConn(c turn.AllocateListenerConfig) (net.PacketConn, net.Addr, error) {
	r, err := g.rs.allocate(c.Network, c.UserID)
	if err != nil {
		return nil, nil, err
	}
	return r, r.LocalAddr(), nil
}

var errTCPRelay = errors.New("this server relays UDP only")

func (g relayGenerator) AllocateListener(turn.AllocateListenerConfig) (net.Listener, net.Addr, error) {
	return nil, nil, errTCPRelay
}

func (g relayGenerator) AllocateConn(turn.AllocateConnConfig) (net.Conn, error) {
	return nil, errTCPRelay
}

// newTURN starts the TURN server on the port's TURN side: credentials of the TURN REST API
// under secret, relays into ICE only.
func newTURN(udp net.PacketConn, tcp net.Listener, rs *relays, secret string, lf pionLogs) (*turn.Server, error) {
	return turn.NewServer(turn.ServerConfig{
		Realm:             "hearth",
		AuthHandler:       turn.LongTermTURNRESTAuthHandler(secret, lf.NewLogger("turn")),
		LoggerFactory:     lf,
		PacketConnConfigs: []turn.PacketConnConfig{{PacketConn: udp, RelayAddressGenerator: relayGenerator{rs}, PermissionHandler: rs.permitted}},
		ListenerConfigs:   []turn.ListenerConfig{{Listener: tcp, RelayAddressGenerator: relayGenerator{rs}, PermissionHandler: rs.permitted}},
	})
}

// permitted is the TURN server's PermissionHandler: a client may relay to this server only.
func (rs *relays) permitted(_ net.Addr, peer net.IP) bool {
	a, ok := netip.AddrFromSlice(peer)
	return ok && rs.own(a.Unmap())
}
