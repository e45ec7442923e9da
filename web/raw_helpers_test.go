package web_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/web/webtest"
)

// rawConn is one connection to the server on which a test writes a request by hand, so that it
// controls how (and whether) the body arrives.
type rawConn struct {
	t    testing.TB
	conn net.Conn
	br   *bufio.Reader
}

// dialRaw opens a connection to the server; it is closed when the test ends.
func dialRaw(t testing.TB, s *webtest.Server) *rawConn {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, webtest.Wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawConn{t: t, conn: conn, br: bufio.NewReader(conn)}
}

// head writes a POST's request line and headers; header lines are "Name: value".
func (c *rawConn) head(path string, contentLength int, header ...string) {
	c.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: hearth.test\r\nContent-Length: %d\r\n", path, contentLength)
	for _, h := range header {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(c.conn, b.String()); err != nil {
		c.t.Fatal(err)
	}
}

// send writes body bytes; a write the server no longer reads fails, which is fine.
func (c *rawConn) send(b []byte) error {
	c.conn.SetWriteDeadline(time.Now().Add(webtest.Wait))
	_, err := c.conn.Write(b)
	return err
}

// closeWrite says the body is over, as a client that sent less than it declared and stops.
func (c *rawConn) closeWrite() {
	c.conn.(*net.TCPConn).CloseWrite()
}

// answer reads the response, waiting at most three times webtest.Wait: longer than any
// deadline of the server, so that a missing answer fails instead of hanging.
func (c *rawConn) answer() (*http.Response, string) {
	c.t.Helper()
	res, body, err := c.tryAnswer()
	if err != nil {
		c.t.Fatalf("no answer: %v", err)
	}
	return res, body
}

// tryAnswer is answer for goroutines other than the test's.
func (c *rawConn) tryAnswer() (*http.Response, string, error) {
	c.conn.SetReadDeadline(time.Now().Add(3 * webtest.Wait))
	res, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return nil, "", err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(body), err
}

// connectError is the code and message of a Connect unary error body.
func connectError(t testing.TB, body string) (code, msg string) {
	t.Helper()
	var e struct{ Code, Message string }
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("not a Connect error: %q", body)
	}
	return e.Code, e.Message
}

// partialFiles lists the temporary files of the server's file bucket (writes not finished).
func partialFiles(t testing.TB, s *webtest.Server) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(s.Dir, "files"), func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".tmp") {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// multipartHead is the start of a multipart/form-data body of one part named file.
const (
	boundary      = "hearth-test-boundary"
	multipartHead = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
	multipartTail = "\r\n--" + boundary + "--\r\n"
	multipartType = "Content-Type: multipart/form-data; boundary=" + boundary
)
