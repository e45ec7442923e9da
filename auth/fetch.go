package auth

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
)

const (
	// fetchTimeout bounds one request to an issuer, whatever the HTTP client allows.
	fetchTimeout = 15 * time.Second
	// maxDiscoveryBytes and maxJWKSBytes bound what we read from an issuer: real documents
	// are a few KiB, and a broken or hostile server must not fill our memory.
	maxDiscoveryBytes = 64 << 10
	maxJWKSBytes      = 256 << 10
)

// fetchError is a failed request to an issuer. It says what was asked and what went wrong;
// errors.As finds it under jwx's wrapping, so the message stays readable.
type fetchError struct{ msg string }

func (e *fetchError) Error() string { return e.msg }

// get fetches url with a bounded time and body; anything but 200 OK is an error.
func get(ctx context.Context, client *http.Client, url string, limit int64) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, &fetchError{fmt.Sprintf("GET %s: %v", url, err)}
	}
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		// *url.Error already names the method and the URL.
		return nil, nil, &fetchError{err.Error()}
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, nil, &fetchError{fmt.Sprintf("GET %s: %s", url, res.Status)}
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, nil, &fetchError{fmt.Sprintf("GET %s: reading the response: %v", url, err)}
	}
	if int64(len(body)) > limit {
		return nil, nil, &fetchError{fmt.Sprintf("GET %s: the response is larger than %d bytes", url, limit)}
	}
	return res, body, nil
}

// jwksClient is the HTTP client handed to jwx's JWKS cache. jwx reads the body without a
// limit and its requests carry no context, so each request here gets our timeout and the
// body is read (bounded) before jwx sees it. The body is also checked to be a JWK set here,
// where the failure can still be told in plain words (jwx's own message is a long chain).
type jwksClient struct{ client *http.Client }

func (c jwksClient) Get(url string) (*http.Response, error) {
	// Not the caller's context: jwx also calls this from its background refresh.
	res, body, err := get(context.Background(), c.client, url, maxJWKSBytes)
	if err != nil {
		return nil, err
	}
	if _, err := jwk.Parse(body); err != nil {
		return nil, &fetchError{fmt.Sprintf("GET %s: not a valid JWK set: %v", url, err)}
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, nil
}
