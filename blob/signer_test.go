package blob_test

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hearth/blob"
)

const testID = "0192f0c4-7b1e-7cc3-9a5e-1f2d3c4b5a69"

// fixedSigner is a Signer over the key 0, 1, ..., 31.
func fixedSigner(t testing.TB) *blob.Signer {
	t.Helper()
	dir := t.TempDir()
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	if err := os.WriteFile(filepath.Join(dir, "file-key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := blob.LoadOrCreateSigner(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadOrCreateSigner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s1, err := blob.LoadOrCreateSigner(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "file-key"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 32 || fi.Mode().Perm() != 0o600 {
		t.Errorf("file-key: %d bytes, mode %v; want 32 bytes, 0600", fi.Size(), fi.Mode().Perm())
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data folder: %v, %v; want mode 0700", fi.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("data folder holds %d entries, want only file-key (a temporary file left?)", len(entries))
	}
	// A restart reads the same key: URLs issued before stay valid.
	s2, err := blob.LoadOrCreateSigner(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if s1.URL(testID, "a.png", now) != s2.URL(testID, "a.png", now) {
		t.Error("the key changed between two loads")
	}
	// Another data folder, another key.
	s3, err := blob.LoadOrCreateSigner(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if s1.URL(testID, "a.png", now) == s3.URL(testID, "a.png", now) {
		t.Error("two new keys are the same")
	}
}

func TestLoadSignerRefusesBadKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  []byte
		want string
	}{
		{"empty", nil, "has 0 bytes, not 32"},
		{"short", make([]byte, 16), "has 16 bytes, not 32"},
		{"long", make([]byte, 33), "has 33 bytes, not 32"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "file-key"), tc.key, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := blob.LoadOrCreateSigner(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s key: %v, want an error containing %q", tc.name, err, tc.want)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "file-key")); len(got) != len(tc.key) {
			t.Errorf("%s key was rewritten", tc.name)
		}
	}

	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "file-key"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := blob.LoadOrCreateSigner(dir); err == nil || !strings.Contains(err.Error(), "file URL key") {
		t.Errorf("unreadable key: %v", err)
	}
}

// The format is fixed by DECISIONS.md: a known answer, so a refactor cannot change it.
func TestSignerURLKnownAnswer(t *testing.T) {
	s := fixedSigner(t)
	now := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	got := s.URL(testID, "holiday photo.jpg", now)
	want := "/files/" + testID + "/holiday%20photo.jpg?exp=1795348800&sig=kYwebE_ckeCvg4Vf2emTrX6a37dxEaWR8C25LquNX8s"
	if got != want {
		t.Errorf("URL = %s\nwant  %s", got, want)
	}
	if err := s.Check(testID, "1795348800", "kYwebE_ckeCvg4Vf2emTrX6a37dxEaWR8C25LquNX8s", now); err != nil {
		t.Errorf("Check of its own URL: %v", err)
	}
}

func TestSignerExpiry(t *testing.T) {
	s := fixedSigner(t)
	at := func(h, m, sec, ns int) time.Time { return time.Date(2026, 11, 22, h, m, sec, ns, time.UTC) }
	for _, tc := range []struct{ now, want time.Time }{
		{at(10, 0, 0, 0), at(11, 0, 0, 0)}, // on the hour: exactly one hour
		{at(10, 0, 0, 1), at(12, 0, 0, 0)}, // a nanosecond later: rounded up
		{at(10, 30, 0, 0), at(12, 0, 0, 0)},
		{at(10, 59, 59, 999_999_999), at(12, 0, 0, 0)},
		{at(23, 15, 0, 0), time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)},
		// Time zones do not move hours that are whole in UTC.
		{at(10, 30, 0, 0).In(time.FixedZone("IST", 5*3600+1800)), at(12, 0, 0, 0)},
	} {
		got := s.Expiry(tc.now)
		if !got.Equal(tc.want) {
			t.Errorf("Expiry(%v) = %v, want %v", tc.now, got, tc.want)
		}
		if d := got.Sub(tc.now); d < time.Hour || d > 2*time.Hour {
			t.Errorf("Expiry(%v) is %v ahead, want one to two hours", tc.now, d)
		}
	}
	// The same URL all through an hour, so browsers can cache it.
	first := s.URL(testID, "a", at(10, 0, 0, 1))
	for _, m := range []int{1, 17, 59} {
		if got := s.URL(testID, "a", at(10, m, 30, 0)); got != first {
			t.Errorf("URL at 10:%02d differs from the one at 10:00", m)
		}
	}
}

func TestSignerCheck(t *testing.T) {
	s := fixedSigner(t)
	now := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	exp, sig := parts(t, s.URL(testID, "x", now))
	other := fixedSigner(t)
	otherKey, err := blob.LoadOrCreateSigner(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, foreignSig := parts(t, otherKey.URL(testID, "x", now))
	farExp := strconv.FormatInt(now.Add(2*time.Hour+time.Second).Unix(), 10)
	// Signed with the right key, but at 11:30:02, so exp is 13:00: 2.5 hours from now.
	farSignedExp, farSig := parts(t, other.URL(testID, "x", now.Add(time.Hour+2*time.Second)))
	expiresAt := s.Expiry(now)

	for _, tc := range []struct {
		name         string
		id, exp, sig string
		now          time.Time
		want         error
	}{
		{"valid", testID, exp, sig, now, nil},
		{"valid until the last second", testID, exp, sig, expiresAt.Add(-time.Nanosecond), nil},
		{"expired at exp", testID, exp, sig, expiresAt, blob.ErrURLExpired},
		{"expired long ago", testID, exp, sig, expiresAt.Add(48 * time.Hour), blob.ErrURLExpired},
		{"no exp", testID, "", sig, now, blob.ErrURLMissing},
		{"no sig", testID, exp, "", now, blob.ErrURLMissing},
		{"exp not a number", testID, "soon", sig, now, blob.ErrURLGarbled},
		{"exp with a sign", testID, "+" + exp, sig, now, blob.ErrURLGarbled},
		{"exp with a leading zero", testID, "0" + exp, sig, now, blob.ErrURLGarbled},
		{"exp negative", testID, "-1", sig, now, blob.ErrURLGarbled},
		{"exp zero", testID, "0", sig, now, blob.ErrURLGarbled},
		{"exp overflowing", testID, "99999999999999999999", sig, now, blob.ErrURLGarbled},
		{"sig not base64url", testID, exp, "!!!!", now, blob.ErrURLGarbled},
		{"sig padded", testID, exp, sig + "=", now, blob.ErrURLGarbled},
		{"sig in standard base64", testID, exp, strings.NewReplacer("-", "+", "_", "/").Replace(sig) + "+/", now, blob.ErrURLGarbled},
		{"sig short", testID, exp, sig[:40], now, blob.ErrURLGarbled},
		{"sig long", testID, exp, sig + "AAAA", now, blob.ErrURLGarbled},
		{"exp too far ahead", testID, farExp, sig, now, blob.ErrURLTooFar},
		{"exp too far ahead, signed", testID, farSignedExp, farSig, now, blob.ErrURLTooFar},
		{"exp changed", testID, strconv.FormatInt(expiresAt.Unix()-3600, 10), sig, now, blob.ErrURLTampered},
		{"other file", testID[:len(testID)-1] + "0", exp, sig, now, blob.ErrURLTampered},
		{"sig changed", testID, exp, flip(sig), now, blob.ErrURLTampered},
		{"other key", testID, exp, foreignSig, now, blob.ErrURLTampered},
	} {
		err := s.Check(tc.id, tc.exp, tc.sig, tc.now)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: Check = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestURLNameCannotEscapeFilePath: whatever the uploaded name, the URL stays one segment
// under /files/<id>/ and carries exactly exp and sig.
func TestURLNameCannotEscapeFilePath(t *testing.T) {
	s := fixedSigner(t)
	now := time.Now()
	for _, name := range []string{
		"../../etc/passwd", "..", ".", "...", "/", "//evil.example/x", `..\..\windows\system32`,
		"a/../../b", "x\x00y.png", "\x00", "line\r\nSet-Cookie: a=b", "%2e%2e%2fadmin", "..%2f..%2f",
		"name?exp=1&sig=2#frag", "a;b=c", " .. ", "\u202egnp.exe", "\xff\xfe.png", "",
		strings.Repeat("../", 100), strings.Repeat("é", 300) + ".txt",
	} {
		u := s.URL(testID, name, now)
		prefix := "/files/" + testID + "/"
		if !strings.HasPrefix(u, prefix) {
			t.Errorf("%q: URL %s does not start with %s", name, u, prefix)
			continue
		}
		pu, err := url.Parse(u)
		if err != nil {
			t.Errorf("%q: URL %s does not parse: %v", name, u, err)
			continue
		}
		seg := strings.TrimPrefix(pu.EscapedPath(), prefix)
		dec, err := url.PathUnescape(seg)
		if err != nil || strings.ContainsAny(seg, "/?#\\") || dec == "." || dec == ".." || dec == "" {
			t.Errorf("%q: name segment %q (%q) is not one plain segment", name, seg, dec)
		}
		if dec != blob.SafeName(name) {
			t.Errorf("%q: the URL names %q, SafeName says %q", name, dec, blob.SafeName(name))
		}
		if q := pu.Query(); len(q) != 2 || len(q["exp"]) != 1 || len(q["sig"]) != 1 || pu.Fragment != "" {
			t.Errorf("%q: query %v, fragment %q", name, q, pu.Fragment)
		}
		if err := s.Check(testID, pu.Query().Get("exp"), pu.Query().Get("sig"), now); err != nil {
			t.Errorf("%q: the URL does not check: %v", name, err)
		}
	}
}

// parts returns the exp and sig of a URL.
func parts(t *testing.T, u string) (exp, sig string) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return pu.Query().Get("exp"), pu.Query().Get("sig")
}

// flip changes the first character of a base64url string to another valid one.
func flip(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}
