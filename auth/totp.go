package auth

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"image/png"
	"net/url"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// Two-step sign-in with TOTP (RFC 6238: 6 digits, 30-second steps, one step of skew either
// way; github.com/pquerna/otp computes the codes) and recovery codes.

const (
	totpPeriod = 30
	totpDigits = otp.DigitsSix
	// recoveryCodes is how many recovery codes a person gets; each works once.
	recoveryCodes = 10
	// recoveryCodeLen is the length of a recovery code without its hyphen: 10 characters of
	// base32, 50 bits.
	recoveryCodeLen = 10
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: totpDigits, Algorithm: otp.AlgorithmSHA1}

// newTOTPKey makes a fresh secret for the account, named for authenticator apps by the
// community and the username.
func newTOTPKey(community, username string) (*otp.Key, error) {
	if community == "" {
		community = "Hearth"
	}
	return totp.Generate(totp.GenerateOpts{
		Issuer:      community,
		AccountName: username,
		Period:      totpPeriod,
		Digits:      totpDigits,
		Algorithm:   otp.AlgorithmSHA1,
		SecretSize:  20,
	})
}

// totpKeyOf is the key of a secret made earlier (for its QR code).
func totpKeyOf(community, username, secret string) (*otp.Key, error) {
	if community == "" {
		community = "Hearth"
	}
	q := url.Values{"secret": {secret}, "issuer": {community}, "period": {"30"}, "digits": {"6"}, "algorithm": {"SHA1"}}
	u := url.URL{Scheme: "otpauth", Host: "totp", Path: "/" + community + ":" + username, RawQuery: q.Encode()}
	return otp.NewKeyFromURL(u.String())
}

// qrDataURL is the key's otpauth URL as a QR code, a PNG in a data URL for an <img> (a
// template.URL: html/template takes no data: URL in a src otherwise; this one is ours).
func qrDataURL(k *otp.Key) (template.URL, error) {
	img, err := k.Image(240, 240)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}

// totpStep checks a code against secret at now and returns the step it belongs to, which
// must be later than last (a code works once, and no older code works after a newer one).
// ok is false for a wrong, reused or malformed code.
func totpStep(secret, code string, now time.Time, last int64) (step int64, ok bool) {
	code = strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, code)
	if len(code) != 6 {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	for _, s := range []int64{cur - 1, cur, cur + 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*totpPeriod, 0), totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && s > last {
			return s, true
		}
	}
	return 0, false
}

// newRecoveryCodes makes the recovery codes (to show once) and their hashes (to keep).
func newRecoveryCodes() (codes []string, hashes [][]byte) {
	for range recoveryCodes {
		c := strings.ToLower(rand.Text()[:recoveryCodeLen])
		codes = append(codes, c[:5]+"-"+c[5:])
		hashes = append(hashes, recoveryHash(c))
	}
	return codes, hashes
}

// normalizeRecoveryCode takes a code as typed: any case, with or without its hyphen and spaces.
func normalizeRecoveryCode(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func recoveryHash(code string) []byte {
	h := sha256.Sum256([]byte("hearth recovery code\x00" + normalizeRecoveryCode(code)))
	return h[:]
}

// useRecoveryCode removes the code from hashes and reports whether it was there. Every hash is
// compared, in constant time.
func useRecoveryCode(hashes [][]byte, code string) ([][]byte, bool) {
	if len(normalizeRecoveryCode(code)) != recoveryCodeLen {
		return hashes, false
	}
	h := recoveryHash(code)
	at := -1
	for i, x := range hashes {
		if subtle.ConstantTimeCompare(x, h) == 1 {
			at = i
		}
	}
	if at < 0 {
		return hashes, false
	}
	out := append([][]byte(nil), hashes[:at]...)
	return append(out, hashes[at+1:]...), true
}

// sealer keeps TOTP secrets unreadable in the database: AES-256-GCM with a key derived
// (HKDF-SHA-256) from the issuer's signing key, which lives in <data>/issuer-key beside the
// database, not in it. A copy of the database alone gives no secret away; a backup, which
// carries the key file, restores them.
type sealer struct{ aead cipher.AEAD }

func newSealer(i *Issuer) (*sealer, error) {
	seed, err := i.private.Bytes()
	if err != nil {
		return nil, err
	}
	key, err := hkdf.Key(sha256.New, seed, nil, "hearth totp secrets v1", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead}, nil
}

// seal encrypts secret for the account subject (the subject is bound in, so a sealed secret
// copied to another account does not open).
func (s *sealer) seal(subject, secret string) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce)
	return s.aead.Seal(nonce, nonce, []byte(secret), []byte(subject))
}

func (s *sealer) open(subject string, sealed []byte) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("the sealed TOTP secret is too short")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(subject))
	if err != nil {
		return "", fmt.Errorf("the TOTP secret does not open with this server's key (was issuer-key replaced?): %w", err)
	}
	return string(plain), nil
}
