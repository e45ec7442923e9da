package blobtest

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"hearth/blob"
)

// testSignedGetURL: a bucket that can sign gives a URL any HTTP client can fetch, with
// the stored type and the asked-for disposition; one that cannot says so.
func testSignedGetURL(t *testing.T, b *blob.Bucket, signsDisposition bool) {
	key := blob.FileKey(newID(t))
	data := newPattern(50_000).all()
	put(t, b, key, data, "application/pdf")

	u, ok, err := b.SignedGetURL(ctx(t), key, 5*time.Minute, "")
	if !b.CanSign() {
		if ok || err != nil || u != "" {
			t.Errorf("SignedGetURL on a bucket that cannot sign = %q, %v, %v; want \"\", false, nil", u, ok, err)
		}
		return
	}
	if err != nil || !ok {
		t.Fatalf("SignedGetURL = %q, %v, %v", u, ok, err)
	}
	resp := get(t, u)
	if resp.status != http.StatusOK || !bytes.Equal(resp.body, data) || resp.header.Get("Content-Type") != "application/pdf" {
		t.Errorf("GET of the signed URL: %d, %d bytes, type %q", resp.status, len(resp.body), resp.header.Get("Content-Type"))
	}

	const cd = `attachment; filename="report.pdf"`
	u, ok, err = b.SignedGetURL(ctx(t), key, 5*time.Minute, cd)
	if err != nil || ok != signsDisposition {
		t.Fatalf("SignedGetURL with a disposition = %q, %v, %v; want ok %v", u, ok, err, signsDisposition)
	}
	if ok {
		resp := get(t, u)
		if resp.status != http.StatusOK || !bytes.Equal(resp.body, data) || resp.header.Get("Content-Disposition") != cd {
			t.Errorf("GET of the signed URL with a disposition: %d, %d bytes, disposition %q", resp.status, len(resp.body), resp.header.Get("Content-Disposition"))
		}
	}

	if _, _, err := b.SignedGetURL(ctx(t), key, 5*time.Minute, "attachment\r\nSet-Cookie: a=b"); err == nil {
		t.Error("SignedGetURL took a disposition with CR LF")
	}
	if _, _, err := b.SignedGetURL(ctx(t), key, 0, ""); err == nil {
		t.Error("SignedGetURL took a zero ttl")
	}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func get(t *testing.T, u string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, body}
}
