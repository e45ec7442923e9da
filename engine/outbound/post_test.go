package outbound_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"hearth/engine/outbound"
)

// TestAllowPostLetsPushesThroughTheSamePolicy: with AllowPost a client makes POST requests with
// a body (Web Push) and still no other method, and the address rule still holds for them: a
// POST to loopback under the public policy never reaches the server.
func TestAllowPostLetsPushesThroughTheSamePolicy(t *testing.T) {
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, r.Method+" "+string(b))
	})
	public := outbound.New(outbound.Options{Policy: outbound.Policy{AnyPort: true}, AllowPost: true})
	_, err := public.HTTPClient().Post(p.URL, "application/octet-stream", strings.NewReader("x"))
	wantRefused(t, err, "not public (loopback)")
	if n := p.hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
	c := outbound.New(outbound.Options{Policy: publicAt(p), AllowPost: true})
	res, err := c.HTTPClient().Post(p.URL, "application/octet-stream", strings.NewReader("a push"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "POST a push" {
		t.Fatalf("the server saw %q", b)
	}
	req, _ := http.NewRequest(http.MethodPut, p.URL, strings.NewReader("x"))
	_, err = c.HTTPClient().Do(req)
	wantRefused(t, err, "only GET requests without a body")
}
