// Package voice is Hearth's voice server (EXTENSIONS.md 10): a selective forwarding unit (SFU)
// on pion/webrtc that forwards each participant's microphone and screen to the others in
// their voice channel, and a TURN server (pion/turn) for clients behind NAT, all on one UDP
// and TCP port. It is an adapter over the engine, like web: the engine decides who may be in
// which voice channel and tells everyone who sees it (voice_state events); this package moves
// the media and speaks the signalling of VoiceService (the web package's handlers call it).
//
// Each participant has one PeerConnection, whose signalling runs on the session's own
// goroutine (session.go); each received track is read by one goroutine that writes every
// packet to the other participants' tracks (forward.go). The server is always the offerer.
package voice

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/turn/v5"
	"github.com/pion/webrtc/v4"

	"hearth/engine"
	"hearth/engine/ratelimit"
	svcv1 "hearth/proto/svc/v1"
)

// Options configure the voice server. Zero durations take the defaults noted.
type Options struct {
	// Addr is where the media port listens, UDP and TCP on the same port number
	// ("host:port"; port 0 picks one free for both).
	Addr string
	// UDP and TCP, when set, are the media port, taken by the caller with Listen (the binary
	// takes its ports before anything opens); Addr is then unused. Close closes them.
	UDP *net.UDPConn
	TCP net.Listener
	// PublicIP, when valid, is the only address the server gives in its ICE candidates and its
	// TURN URLs: the address clients reach it at, for a server behind NAT (-voice-public-ip).
	PublicIP netip.Addr
	// Host is the name or address clients know the server by (-base-url's host): the host of
	// the TURN URLs (unless PublicIP), and, when it resolves to an address that is not one of
	// the server's own, an extra candidate beside the interfaces' addresses (an address the
	// server may be reached at through NAT with the port forwarded).
	Host string
	// Resolve looks Host up when it is a name (default: the system's resolver, within 5 s).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Log receives the server's log lines (default slog.Default()).
	Log *slog.Logger
	// Now is the clock of the rate limits (default time.Now).
	Now func() time.Time

	// SignalGrace: a session with no Signal stream open this long ends (default 15 s).
	SignalGrace time.Duration
	// AnswerTimeout: a session whose offer stays unanswered this long ends (default 20 s).
	AnswerTimeout time.Duration
	// ConnectTimeout: a session whose media connection is not connected this long ends
	// (default 30 s).
	ConnectTimeout time.Duration
	// Heartbeat is how often Signal sends a heartbeat (default 25 s).
	Heartbeat time.Duration
}

// Server is the voice server. Its methods answer VoiceService's calls.
type Server struct {
	eng    *engine.Engine
	opts   Options
	log    *slog.Logger
	api    *webrtc.API
	cert   webrtc.Certificate
	udp    *udpPort
	tcp    *tcpPort
	udpMux *ice.UDPMuxDefault
	tcpMux *ice.TCPMuxDefault
	turn   *turn.Server
	// secret signs the TURN credentials (TURN REST API); it lives as long as the process, as
	// the sessions do.
	secret   string
	turnURLs []string
	limits   *ratelimit.Limiter

	mu       sync.Mutex
	sessions map[string]*session              // by id
	rooms    map[string]map[*session]struct{} // by channel id
	closed   bool
	wg       sync.WaitGroup
	closing  sync.Once
}

// New starts the voice server on the engine: it takes the media port, starts the TURN
// server, and registers with the engine to hear of the members it takes out of voice.
func New(eng *engine.Engine, opts Options) (*Server, error) {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SignalGrace == 0 {
		opts.SignalGrace = 15 * time.Second
	}
	if opts.AnswerTimeout == 0 {
		opts.AnswerTimeout = 20 * time.Second
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 30 * time.Second
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 25 * time.Second
	}
	if opts.Resolve == nil {
		opts.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	uc, ln := opts.UDP, opts.TCP
	if uc == nil || ln == nil {
		var err error
		if uc, ln, err = Listen(opts.Addr); err != nil {
			return nil, err
		}
	}
	srv := &Server{
		eng: eng, opts: opts, log: opts.Log,
		limits:   ratelimit.New(opts.Now),
		sessions: map[string]*session{},
		rooms:    map[string]map[*session]struct{}{},
	}
	ok := false
	defer func() {
		if !ok {
			srv.closePort(uc, ln)
		}
	}()
	lf := pionLogs{log: opts.Log}
	bind := uc.LocalAddr().(*net.UDPAddr)
	port := uint16(bind.Port)
	ad := srv.advertise(bind.AddrPort().Addr().Unmap())
	rs := newRelays(port, ad.own)
	srv.udp = newUDPPort(uc, rs)
	srv.tcp = newTCPPort(ln)
	srv.udpMux = ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: srv.udp.ice, Logger: lf.NewLogger("udpmux")})
	srv.tcpMux = ice.NewTCPMuxDefault(ice.TCPMuxParams{
		Listener: srv.tcp.ice, Logger: lf.NewLogger("tcpmux"),
		ReadBufferSize: 64, WriteBufferSize: 256 << 10,
		FirstStunBindTimeout: 10 * time.Second, AliveDurationForConnFromStun: 30 * time.Second,
	})
	se, err := settings(srv.udpMux, srv.tcpMux, ad.loopback, ad.rules, lf)
	if err != nil {
		return nil, err
	}
	if srv.api, err = newAPI(se); err != nil {
		return nil, err
	}
	// One certificate for every PeerConnection: making one costs a key pair each.
	if srv.cert, err = newCertificate(); err != nil {
		return nil, err
	}
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return nil, err
	}
	srv.secret = base64.RawStdEncoding.EncodeToString(key[:])
	if srv.turn, err = newTURN(srv.udp.turn, srv.tcp.turn, rs, srv.secret, lf); err != nil {
		return nil, fmt.Errorf("start the TURN server: %w", err)
	}
	hostport := net.JoinHostPort(ad.turnHost, strconv.Itoa(int(port)))
	srv.turnURLs = []string{"turn:" + hostport + "?transport=udp", "turn:" + hostport + "?transport=tcp"}
	eng.SetVoiceHook(srv.removed)
	ok = true
	opts.Log.Info("voice", "port", port, "udp_tcp", bind.String(), "candidates", ad.describe, "turn", srv.turnURLs[0])
	return srv, nil
}

// Port is the media port's number (UDP and TCP).
func (srv *Server) Port() int { return srv.udp.conn.LocalAddr().(*net.UDPAddr).Port }

// advertised is what the server tells clients of where to reach it.
type advertised struct {
	rules    []webrtc.ICEAddressRewriteRule
	loopback bool
	turnHost string
	own      func(netip.Addr) bool
	describe string
}

// advertise decides the addresses of the server's candidates: -voice-public-ip alone when
// given; else the addresses of the interfaces the port is bound to, and the address -base-url's
// host resolves to when it is not one of them (the server behind NAT). Loopback addresses are
// given only when the port is bound to one or the host is one (a server on a laptop).
func (srv *Server) advertise(bind netip.Addr) advertised {
	ad := advertised{turnHost: srv.opts.Host, loopback: bind.IsLoopback()}
	own := map[netip.Addr]bool{}
	if pub := srv.opts.PublicIP.Unmap(); pub.IsValid() {
		ad.rules = []webrtc.ICEAddressRewriteRule{{External: []string{pub.String()}, AsCandidateType: webrtc.ICECandidateTypeHost, Mode: webrtc.ICEAddressRewriteReplace}}
		ad.turnHost = pub.String()
		ad.loopback = ad.loopback || pub.IsLoopback()
		own[pub] = true
		ad.own = func(a netip.Addr) bool { return own[a] }
		ad.describe = pub.String() + " (-voice-public-ip)"
		return ad
	}
	if bind.IsUnspecified() {
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if p, err := netip.ParsePrefix(a.String()); err == nil {
					own[p.Addr().Unmap()] = true
				}
			}
		}
	} else {
		own[bind] = true
	}
	ad.describe = "the addresses of the interfaces"
	if !bind.IsUnspecified() {
		ad.describe = bind.String()
	}
	var extra []netip.Addr
	if a, err := netip.ParseAddr(srv.opts.Host); err == nil {
		extra = []netip.Addr{a.Unmap()}
	} else if srv.opts.Host != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		addrs, err := srv.opts.Resolve(ctx, srv.opts.Host)
		cancel()
		if err != nil {
			srv.log.Warn("voice: could not resolve -base-url's host; candidates carry the interfaces' addresses only (set -voice-public-ip if the server is behind NAT)", "host", srv.opts.Host, "err", err)
		}
		for _, a := range addrs {
			extra = append(extra, a.Unmap())
		}
	}
	for _, a := range extra {
		switch {
		case a.IsLoopback():
			ad.loopback = true
			own[a] = true
		case !own[a] && !a.IsUnspecified() && (bind.IsUnspecified() || a.Is4() == bind.Is4()):
			own[a] = true
			ad.rules = append(ad.rules, webrtc.ICEAddressRewriteRule{External: []string{a.String()}, AsCandidateType: webrtc.ICECandidateTypeHost, Mode: webrtc.ICEAddressRewriteAppend, Networks: networksOf(a)})
			ad.describe += " and " + a.String() + " (-base-url's host)"
		}
	}
	if ad.loopback {
		for _, a := range []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()} {
			own[a] = true
		}
	}
	ad.own = func(a netip.Addr) bool { return own[a] }
	return ad
}

// networksOf are the networks an address is a candidate on.
func networksOf(a netip.Addr) []webrtc.NetworkType {
	if a.Is4() {
		return []webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeTCP4}
	}
	return []webrtc.NetworkType{webrtc.NetworkTypeUDP6, webrtc.NetworkTypeTCP6}
}

// turnLifetime is how long the TURN credentials of a call last.
const turnLifetime = 12 * time.Hour

// iceServers are a member's ICE servers: this server's TURN, with fresh credentials.
func (srv *Server) iceServers(memberID string) []*svcv1.IceServer {
	user, pass, err := turn.GenerateLongTermTURNRESTCredentials(srv.secret, memberID, turnLifetime)
	if err != nil {
		return nil
	}
	return []*svcv1.IceServer{{Urls: srv.turnURLs, Username: user, Credential: pass}}
}

// removed hears of a member the engine took out of voice (engine.SetVoiceHook): their session
// ends. It runs on the engine's writer: it only marks the session.
func (srv *Server) removed(x engine.VoiceEnded) {
	srv.mu.Lock()
	s := srv.sessions[x.SessionID]
	srv.mu.Unlock()
	if s != nil {
		s.end(x.Reason, x.Message)
	}
}

// Close ends every session (ended reason SHUTDOWN), then stops the TURN server and the port.
// Closing again does nothing.
func (srv *Server) Close() { srv.closing.Do(srv.close) }

func (srv *Server) close() {
	srv.mu.Lock()
	srv.closed = true
	var all []*session
	for _, s := range srv.sessions {
		all = append(all, s)
	}
	srv.mu.Unlock()
	for _, s := range all {
		s.end(svcv1.VoiceEndReason_VOICE_END_REASON_SHUTDOWN, "the server is shutting down")
	}
	srv.wg.Wait()
	srv.eng.SetVoiceHook(nil)
	if srv.turn != nil {
		srv.turn.Close()
	}
	srv.udpMux.Close()
	srv.tcpMux.Close()
	srv.udp.close()
	srv.tcp.close()
}

// closePort releases the port of a server that did not start.
func (srv *Server) closePort(uc *net.UDPConn, ln net.Listener) {
	if srv.turn != nil {
		srv.turn.Close()
	}
	if srv.udpMux != nil {
		srv.udpMux.Close()
	}
	if srv.tcpMux != nil {
		srv.tcpMux.Close()
	}
	if srv.udp != nil {
		srv.udp.close()
	} else {
		uc.Close()
	}
	if srv.tcp != nil {
		srv.tcp.close()
	} else {
		ln.Close()
	}
}

// newID is a session id: 128 random bits, hex.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// Errors, as the engine's (web maps them to Connect codes).

func invalid(format string, args ...any) error {
	return &engine.Error{Code: engine.CodeInvalidArgument, Msg: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &engine.Error{Code: engine.CodeNotFound, Msg: fmt.Sprintf(format, args...)}
}

var errClosed = &engine.Error{Code: engine.CodeUnavailable, Msg: "the server is shutting down"}

var errNoSession = errors.New("voice session is over")
