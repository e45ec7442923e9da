package web_test

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"hearth/web/webtest"
)

// h2Client is a raw HTTP/2 client (x/net's Framer), for what no well-behaved client does: it
// gives the server a window of its choice and never gives it more (no WINDOW_UPDATE), while it
// reads every frame the server sends, acknowledges its SETTINGS and answers its PINGs.
type h2Client struct {
	t         testing.TB
	conn      net.Conn
	scheme    string
	authority string

	mu   sync.Mutex // the Framer's writes and what follows
	fr   *http2.Framer
	hbuf bytes.Buffer
	enc  *hpack.Encoder
	next uint32
	// ended holds how each stream ended: "end" (the server's END_STREAM) or the RST_STREAM's code.
	ended   map[uint32]string
	headers map[uint32]bool
	changed chan struct{}
	gone    error
}

// dialH2 opens an HTTP/2 connection to s (over TLS with tlsConf, else h2c with prior
// knowledge) whose streams give the server window bytes of room each.
func dialH2(t testing.TB, s *webtest.Server, tlsConf *tls.Config, window uint32) *h2Client {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := &h2Client{t: t, scheme: u.Scheme, authority: u.Host, next: 1, ended: map[uint32]string{}, headers: map[uint32]bool{}, changed: make(chan struct{}, 1)}
	if tlsConf != nil {
		tc, err := tls.DialWithDialer(&net.Dialer{Timeout: webtest.Wait}, "tcp", u.Host, tlsConf)
		if err != nil {
			t.Fatal(err)
		}
		if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
			t.Fatalf("ALPN chose %q, want h2", p)
		}
		c.conn = tc
	} else if c.conn, err = net.DialTimeout("tcp", u.Host, webtest.Wait); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.conn.Close() })
	if _, err := c.conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	c.fr = http2.NewFramer(c.conn, c.conn)
	c.enc = hpack.NewEncoder(&c.hbuf)
	if err := c.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: window}); err != nil {
		t.Fatal(err)
	}
	go c.read()
	return c
}

// open starts a request; body, when not nil, is sent whole after the headers.
func (c *h2Client) open(method, path string, body []byte, header ...string) uint32 {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.next
	c.next += 2
	c.hbuf.Reset()
	all := append([]string{":method", method, ":scheme", c.scheme, ":authority", c.authority, ":path", path}, header...)
	for i := 0; i+1 < len(all); i += 2 {
		c.enc.WriteField(hpack.HeaderField{Name: all[i], Value: all[i+1]})
	}
	err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndHeaders: true, EndStream: body == nil})
	if err == nil && body != nil {
		err = c.fr.WriteData(id, true, body)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return id
}

// subscribe opens a Subscribe stream in the Connect protocol (JSON), with token.
func (c *h2Client) subscribe(token string) uint32 {
	c.t.Helper()
	msg := []byte(`{}`)
	body := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(body[1:], uint32(len(msg)))
	return c.open("POST", "/svc.v1.ChatService/Subscribe", append(body, msg...),
		"content-type", "application/connect+json", "authorization", "Bearer "+token)
}

// read reads every frame the server sends until the connection ends.
func (c *h2Client) read() {
	for {
		f, err := c.fr.ReadFrame()
		c.mu.Lock()
		if err != nil {
			c.gone = err
			c.mu.Unlock()
			c.ring()
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				c.fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				c.fr.WritePing(true, f.Data)
			}
		case *http2.HeadersFrame:
			c.headers[f.StreamID] = true
			if f.StreamEnded() {
				c.ended[f.StreamID] = "end"
			}
		case *http2.DataFrame:
			if f.StreamEnded() {
				c.ended[f.StreamID] = "end"
			}
		case *http2.RSTStreamFrame:
			c.ended[f.StreamID] = f.ErrCode.String()
		case *http2.GoAwayFrame:
			c.gone = errors.New("GOAWAY " + f.ErrCode.String())
		}
		c.mu.Unlock()
		c.ring()
	}
}

func (c *h2Client) ring() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// waitEnded waits until stream id has ended, and returns how (or "" with the connection's
// end, if it went first), failing after within.
func (c *h2Client) waitEnded(id uint32, within time.Duration) string {
	c.t.Helper()
	deadline := time.After(within)
	for {
		c.mu.Lock()
		how, gone := c.ended[id], c.gone
		c.mu.Unlock()
		if how != "" {
			return how
		}
		if gone != nil {
			return "connection: " + gone.Error()
		}
		select {
		case <-c.changed:
		case <-deadline:
			c.t.Fatalf("stream %d has not ended after %s", id, within)
		}
	}
}
