package blob

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hearth/keyfile"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// keySize is the length of <data>/file-key in bytes.
const keySize = 32

// maxAhead is the furthest ahead an exp can be: a URL is made valid for one to two hours,
// so a later exp was not made by us (or was made with a clock far ahead).
const maxAhead = 2 * time.Hour

// Why Check refused a URL. The web layer answers 403 to all of them; the reasons are for
// logs and tests.
var (
	ErrURLMissing  = errors.New("signed URL: exp or sig missing")
	ErrURLGarbled  = errors.New("signed URL: exp or sig malformed")
	ErrURLExpired  = errors.New("signed URL: expired")
	ErrURLTooFar   = errors.New("signed URL: exp too far ahead")
	ErrURLTampered = errors.New("signed URL: signature does not match")
)

// Signer makes and checks the signed /files URLs (DECISIONS.md, "Files and buckets").
// It is safe for concurrent use.
type Signer struct {
	key []byte
}

// LoadOrCreateSigner reads the key in <dataDir>/file-key, creating it (32 random bytes,
// mode 0600) on first start. A key of another length is refused rather than used: it was
// cut short or is not ours, and a wrong key silently breaks every URL issued.
func LoadOrCreateSigner(dataDir string) (*Signer, error) {
	path := filepath.Join(dataDir, "file-key")
	key, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key, err = createKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("file URL key: %w", err)
	}
	if len(key) != keySize {
		return nil, fmt.Errorf("file URL key %s has %d bytes, not %d: restore it from a backup, or delete it to make a new one (file URLs already issued stop working)", path, len(key), keySize)
	}
	return &Signer{key: key}, nil
}

// createKey makes a new key and writes it once (keyfile.WriteOnce): a key that appeared
// meanwhile wins.
func createKey(path string) ([]byte, error) {
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return keyfile.WriteOnce(path, key)
}

// Expiry is the exp of a URL made at now: now plus one hour, rounded up to a full hour.
// A URL is thus the same for an hour (browsers cache it) and valid one to two hours.
// Cache-Control max-age is Expiry(now) minus now.
func (s *Signer) Expiry(now time.Time) time.Time {
	t := now.Add(time.Hour)
	exp := t.Truncate(time.Hour)
	if exp.Before(t) {
		exp = exp.Add(time.Hour)
	}
	return exp
}

// URL returns the relative URL of file id, shown under name:
// /files/<id>/<name>?exp=<unix seconds>&sig=<signature>. The name goes through SafeName,
// so it cannot leave /files/<id>/ whatever it holds.
func (s *Signer) URL(id, name string, now time.Time) string {
	exp := strconv.FormatInt(s.Expiry(now).Unix(), 10)
	return "/files/" + url.PathEscape(id) + "/" + url.PathEscape(SafeName(name)) +
		"?exp=" + exp + "&sig=" + base64.RawURLEncoding.EncodeToString(s.sign(id, exp))
}

// Check verifies the exp and sig of a URL for file id at now. It returns nil or one of
// the ErrURL errors, wrapped.
func (s *Signer) Check(id, exp, sig string, now time.Time) error {
	return s.check(id, exp, sig, now, maxAhead)
}

// check verifies the signature of subject with an exp at most ahead of now.
func (s *Signer) check(id, exp, sig string, now time.Time, ahead time.Duration) error {
	if exp == "" || sig == "" {
		return ErrURLMissing
	}
	e, err := strconv.ParseInt(exp, 10, 64)
	// Only the form URL writes is accepted: no sign, no leading zeros.
	if err != nil || strconv.FormatInt(e, 10) != exp || e <= 0 {
		return fmt.Errorf("%w: exp %.20q", ErrURLGarbled, exp)
	}
	got, err := base64.RawURLEncoding.Strict().DecodeString(sig)
	if err != nil || len(got) != sha256.Size {
		return fmt.Errorf("%w: sig is not %d bytes of unpadded base64url", ErrURLGarbled, sha256.Size)
	}
	if n := now.Unix(); n >= e {
		return fmt.Errorf("%w at %s", ErrURLExpired, time.Unix(e, 0).UTC().Format(time.RFC3339))
	} else if e-n > int64(ahead/time.Second) {
		return fmt.Errorf("%w: %s", ErrURLTooFar, time.Unix(e, 0).UTC().Format(time.RFC3339))
	}
	if !hmac.Equal(got, s.sign(id, exp)) {
		return ErrURLTampered
	}
	return nil
}

// sign is HMAC-SHA256(key, "<id>.<exp>").
func (s *Signer) sign(id, exp string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(id + "." + exp))
	return m.Sum(nil)
}

// exportAhead is the furthest ahead an export link's exp can be: a link is valid 24 hours.
const exportAhead = 25 * time.Hour

// ExportURL returns the relative URL of a data export (ExportMyData), shown under name and
// valid until expires: /exports/<id>/<name>?exp=<unix seconds>&sig=<signature>. Its signature
// covers a domain of its own, so neither kind of link passes for the other.
func (s *Signer) ExportURL(id, name string, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return "/exports/" + url.PathEscape(id) + "/" + url.PathEscape(SafeName(name)) +
		"?exp=" + exp + "&sig=" + base64.RawURLEncoding.EncodeToString(s.sign("export."+id, exp))
}

// CheckExport verifies the exp and sig of an export link at now, as Check does a file URL's.
func (s *Signer) CheckExport(id, exp, sig string, now time.Time) error {
	return s.check("export."+id, exp, sig, now, exportAhead)
}
