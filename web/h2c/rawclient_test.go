package h2c_test

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// rawClient speaks HTTP/2 frame by frame, to send what a well-behaved client would not.
type rawClient struct {
	t    testing.TB
	conn net.Conn
	fr   *http2.Framer
	hbuf bytes.Buffer
	enc  *hpack.Encoder
}

// dialRaw opens a connection and sends the preface with settings (none: the defaults).
func dialRaw(t testing.TB, addr string, settings ...http2.Setting) *rawClient {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &rawClient{t: t, conn: conn, fr: http2.NewFramer(conn, conn)}
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.enc = hpack.NewEncoder(&c.hbuf)
	if _, err := io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := c.fr.WriteSettings(settings...); err != nil {
		t.Fatal(err)
	}
	return c
}

// headers sends a request's HEADERS: the pseudo-headers for GET path, then extra pairs.
func (c *rawClient) headers(id uint32, endStream bool, method, path string, extra ...string) {
	c.t.Helper()
	c.hbuf.Reset()
	fields := []string{":method", method, ":scheme", "http", ":authority", "example.test", ":path", path}
	fields = append(fields, extra...)
	for i := 0; i < len(fields); i += 2 {
		c.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndStream: endStream, EndHeaders: true}); err != nil {
		c.t.Fatal(err)
	}
}

// restOfTheRequest sends more of stream id's body, then trailers that end it.
func (c *rawClient) restOfTheRequest(id uint32, body string) {
	c.t.Helper()
	if err := c.fr.WriteData(id, false, []byte(body)); err != nil {
		c.t.Fatal(err)
	}
	c.hbuf.Reset()
	c.enc.WriteField(hpack.HeaderField{Name: "x-trailer", Value: "late"})
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		c.t.Fatal(err)
	}
}

// readUntil reads frames until match returns true, and fails the test if the connection
// ends or 10 s pass first. It acknowledges the server's SETTINGS on the way.
func (c *rawClient) readUntil(what string, match func(http2.Frame) bool) http2.Frame {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.conn.SetReadDeadline(time.Time{})
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v", what, err)
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			c.fr.WriteSettingsAck()
		}
		if match(f) {
			return f
		}
	}
}

// settle reads until the server acknowledged the client's SETTINGS, acknowledging the
// server's own on the way: the server writes nothing more of the handshake after that, so a
// handler's writes meet no control frame of it (a TryFlush finding the write lock taken).
func (c *rawClient) settle() {
	c.t.Helper()
	c.readUntil("the SETTINGS ACK", func(f http2.Frame) bool {
		sf, ok := f.(*http2.SettingsFrame)
		return ok && sf.IsAck()
	})
}

// goAway reads until the server's GOAWAY and returns its code.
func (c *rawClient) goAway() http2.ErrCode {
	c.t.Helper()
	f := c.readUntil("GOAWAY", func(f http2.Frame) bool { _, ok := f.(*http2.GoAwayFrame); return ok })
	return f.(*http2.GoAwayFrame).ErrCode
}

// reset reads until the server resets stream id and returns the code.
func (c *rawClient) reset(id uint32) http2.ErrCode {
	c.t.Helper()
	f := c.readUntil("RST_STREAM", func(f http2.Frame) bool {
		r, ok := f.(*http2.RSTStreamFrame)
		return ok && r.StreamID == id
	})
	return f.(*http2.RSTStreamFrame).ErrCode
}
