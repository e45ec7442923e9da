package web_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func getRaw(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	res, err := noRedirects.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// TestFrontDoor: the server's address leads to the client; other paths stay not found.
func TestFrontDoor(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	res, _ := getRaw(t, s.URL+"/")
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/app/" {
		t.Fatalf("GET /: %d to %q, want 302 to /app/", res.StatusCode, res.Header.Get("Location"))
	}
	head, err := noRedirects.Head(s.URL + "/")
	if err != nil || head.StatusCode != http.StatusFound {
		t.Fatalf("HEAD /: %v %v", head, err)
	}
	if res, _ := getRaw(t, s.URL+"/nothing-here"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing-here: %d, want 404", res.StatusCode)
	}
	if res, _ := getRaw(t, s.URL+"/app/"); res.StatusCode != http.StatusOK {
		t.Errorf("GET /app/: %d", res.StatusCode)
	}
}

// TestFaviconIsTheCommunityIcon: /favicon.ico is the client's icon until the community has
// one, then the community's, and the client's again once it is removed.
func TestFaviconIsTheCommunityIcon(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	_, clientIcon := getRaw(t, s.URL+"/app/icon.svg")
	res, body := getRaw(t, s.URL+"/favicon.ico")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || !bytes.Equal(body, clientIcon) {
		t.Fatalf("the default favicon: %d %q, %d bytes; want the client's icon.svg", res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}

	png := pngImage(t, 64, 64)
	att := mustUpload(t, s, owner, "icon.png", png)
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: &att.Id})); err != nil {
		t.Fatal(err)
	}
	res, body = getRaw(t, s.URL+"/favicon.ico")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" || !bytes.Equal(body, png) {
		t.Fatalf("the community's favicon: %d %q, %d bytes; want its %d-byte PNG", res.StatusCode, res.Header.Get("Content-Type"), len(body), len(png))
	}
	if cc := res.Header.Get("Cache-Control"); cc != "public, max-age=3600" {
		t.Errorf("Cache-Control %q", cc)
	}
	r, _ := http.NewRequest(http.MethodGet, s.URL+"/favicon.ico", nil)
	r.Header.Set("If-None-Match", res.Header.Get("ETag"))
	if again, err := http.DefaultClient.Do(r); err != nil || again.StatusCode != http.StatusNotModified {
		t.Errorf("GET /favicon.ico with its ETag: %v %v, want 304", again, err)
	}

	none := ""
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: &none})); err != nil {
		t.Fatal(err)
	}
	if res, body := getRaw(t, s.URL+"/favicon.ico"); res.StatusCode != 200 || !bytes.Equal(body, clientIcon) {
		t.Errorf("the favicon after the icon was removed: %d, %d bytes", res.StatusCode, len(body))
	}
}
