package voice

import (
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/pion/stun/v4"
	"github.com/pion/turn/v5"
)

// stunMessage builds a STUN message of a method and class, with a USERNAME when user is set.
func stunMessage(t *testing.T, method stun.Method, class stun.MessageClass, user string) []byte {
	t.Helper()
	setters := []stun.Setter{stun.TransactionID, stun.NewType(method, class)}
	if user != "" {
		setters = append(setters, stun.NewUsername(user))
	}
	m, err := stun.Build(setters...)
	if err != nil {
		t.Fatal(err)
	}
	return m.Raw
}

// TestTheDemultiplexer: RFC 7983's rules, as the port applies them to each datagram.
func TestTheDemultiplexer(t *testing.T) {
	channelData := make([]byte, 8)
	binary.BigEndian.PutUint16(channelData, 0x4001)
	for _, tc := range []struct {
		name string
		b    []byte
		turn bool
	}{
		{"an ICE check (Binding with USERNAME)", stunMessage(t, stun.MethodBinding, stun.ClassRequest, "server:client"), false},
		{"a Binding request without USERNAME (to the STUN server)", stunMessage(t, stun.MethodBinding, stun.ClassRequest, ""), true},
		{"a Binding success response", stunMessage(t, stun.MethodBinding, stun.ClassSuccessResponse, ""), false},
		{"a Binding indication (ICE keepalive)", stunMessage(t, stun.MethodBinding, stun.ClassIndication, ""), false},
		{"an Allocate request", stunMessage(t, stun.MethodAllocate, stun.ClassRequest, "1:member"), true},
		{"a Refresh request", stunMessage(t, stun.MethodRefresh, stun.ClassRequest, ""), true},
		{"a Send indication", stunMessage(t, stun.MethodSend, stun.ClassIndication, ""), true},
		{"a CreatePermission request", stunMessage(t, stun.MethodCreatePermission, stun.ClassRequest, ""), true},
		{"a ChannelBind request", stunMessage(t, stun.MethodChannelBind, stun.ClassRequest, ""), true},
		{"ChannelData", channelData, true},
		{"DTLS", []byte{22, 254, 253, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, false},
		{"SRTP", []byte{0x80, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, false},
		{"nothing", nil, false},
		{"a short STUN-looking datagram", []byte{0, 1, 0, 0}, false},
	} {
		if got := forTURN(tc.b); got != tc.turn {
			t.Errorf("%s: for TURN %v, want %v", tc.name, got, tc.turn)
		}
	}
}

// turnOnly starts a media port with its TURN server alone, permitting relays to own.
func turnOnly(t *testing.T, secret string, own netip.Addr) (*udpPort, *tcpPort) {
	t.Helper()
	uc, ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rs := newRelays(uint16(uc.LocalAddr().(*net.UDPAddr).Port), func(a netip.Addr) bool { return a == own })
	u, tp := newUDPPort(uc, rs), newTCPPort(ln)
	srv, err := newTURN(u.turn, tp.turn, rs, secret, pionLogs{log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		u.close()
		tp.close()
	})
	return u, tp
}

func turnClient(t *testing.T, server string, user, pass string) *turn.Client {
	t.Helper()
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, err := turn.NewClient(&turn.ClientConfig{
		STUNServerAddr: server, TURNServerAddr: server, Conn: conn, Username: user, Password: pass, Realm: "hearth",
		RTO: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		conn.Close()
	})
	return c
}

// TestTURNRelaysToThisServerOnly: a relay's peer may only be one of the server's own
// addresses: data for any other host is refused (403), and what is relayed to the server's
// address reaches its ICE side from the relay's virtual address, never a socket.
func TestTURNRelaysToThisServerOnly(t *testing.T) {
	own := netip.MustParseAddr("127.0.0.1")
	u, _ := turnOnly(t, "s3cret", own)
	user, pass, err := turn.GenerateLongTermTURNRESTCredentials("s3cret", "member-1", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	c := turnClient(t, u.conn.LocalAddr().String(), user, pass)
	relay, err := c.Allocate()
	if err != nil {
		t.Fatalf("allocate: %v", err)
	}
	defer relay.Close()
	if a, _ := netip.ParseAddrPort(relay.LocalAddr().String()); !virtual(a.Addr()) {
		t.Errorf("the relayed address %s is not a virtual one", relay.LocalAddr())
	}
	// Another host: refused by the permission.
	if err := c.CreatePermission(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 9}); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("a permission for another host: %v, want 403 Forbidden", err)
	}
	// This server: permitted, and what is relayed arrives at ICE from the relayed address.
	if _, err := relay.WriteTo([]byte("hello ICE"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7}); err != nil {
		t.Fatalf("relaying to this server: %v", err)
	}
	buf := make([]byte, 64)
	done := make(chan struct{})
	var n int
	var from netip.AddrPort
	go func() {
		n, from, _ = u.ice.ReadFromAddrPort(buf)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("nothing relayed reached ICE")
	}
	if string(buf[:n]) != "hello ICE" || from.String() != relay.LocalAddr().String() {
		t.Errorf("ICE got %q from %s, want %q from %s", buf[:n], from, "hello ICE", relay.LocalAddr())
	}
	// ICE's answer to the virtual address goes back through the allocation.
	if _, err := u.ice.WriteToAddrPort([]byte("hello client"), from); err != nil {
		t.Fatal(err)
	}
	relay.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, src, err := relay.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "hello client" || src.String() != "127.0.0.1:7" {
		t.Errorf("the client got %q from %v (%v), want %q from 127.0.0.1:7", buf[:n], src, err, "hello client")
	}
}

// TestTURNCredentials: an allocation needs a credential signed with the server's secret and not
// expired; a member gets at most 8 relays.
func TestTURNCredentials(t *testing.T) {
	u, _ := turnOnly(t, "s3cret", netip.MustParseAddr("127.0.0.1"))
	addr := u.conn.LocalAddr().String()
	forged, pass, _ := turn.GenerateLongTermTURNRESTCredentials("another secret", "member-1", time.Hour)
	if _, err := turnClient(t, addr, forged, pass).Allocate(); err == nil {
		t.Error("a credential under another secret allocated")
	}
	expired, pass, _ := turn.GenerateLongTermTURNRESTCredentials("s3cret", "member-1", -time.Minute)
	if _, err := turnClient(t, addr, expired, pass).Allocate(); err == nil {
		t.Error("an expired credential allocated")
	}
	user, pass, _ := turn.GenerateLongTermTURNRESTCredentials("s3cret", "member-2", time.Hour)
	for i := range relaysPerUser + 1 {
		_, err := turnClient(t, addr, user, pass).Allocate()
		if (err == nil) != (i < relaysPerUser) {
			t.Errorf("allocation %d: %v", i+1, err)
		}
	}
}
