package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

func TestTOTPCodesWorkOnceWithinOneStepOfSkew(t *testing.T) {
	key, err := newTOTPKey("Hearth", "ada")
	if err != nil {
		t.Fatal(err)
	}
	secret := key.Secret()
	now := time.Date(2026, 11, 1, 12, 0, 15, 0, time.UTC)
	code := func(at time.Time) string {
		c, err := totp.GenerateCode(secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cur := now.Unix() / 30
	for _, tc := range []struct {
		name string
		at   time.Time
		last int64
		ok   bool
	}{
		{"now", now, 0, true},
		{"the step before", now.Add(-30 * time.Second), 0, true},
		{"the step after", now.Add(30 * time.Second), 0, true},
		{"two steps before", now.Add(-60 * time.Second), 0, false},
		{"two steps after", now.Add(60 * time.Second), 0, false},
		{"used already", now, cur, false},
		{"older than one used", now.Add(-30 * time.Second), cur, false},
	} {
		step, ok := totpStep(secret, code(tc.at), now, tc.last)
		if ok != tc.ok || (ok && step != tc.at.Unix()/30) {
			t.Errorf("%s: step %d ok %v, want ok %v", tc.name, step, ok, tc.ok)
		}
	}
	if _, ok := totpStep(secret, "12345", now, 0); ok {
		t.Error("5 digits taken")
	}
	c := code(now)
	if _, ok := totpStep(secret, c[:3]+" "+c[3:], now, 0); !ok {
		t.Error("a code typed with a space refused")
	}
}

func TestRecoveryCodesWorkOnceInAnyCase(t *testing.T) {
	codes, hashes := newRecoveryCodes()
	if len(codes) != 10 || len(hashes) != 10 {
		t.Fatalf("%d codes", len(codes))
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if len(c) != 11 || c[5] != '-' || seen[c] {
			t.Fatalf("code %q", c)
		}
		seen[c] = true
	}
	left, ok := useRecoveryCode(hashes, strings.ToUpper(strings.ReplaceAll(codes[3], "-", " ")))
	if !ok || len(left) != 9 {
		t.Fatalf("a code typed in capitals with a space: %v, %d left", ok, len(left))
	}
	if _, ok := useRecoveryCode(left, codes[3]); ok {
		t.Fatal("a recovery code worked twice")
	}
	if _, ok := useRecoveryCode(left, "aaaaa-aaaaa"); ok {
		t.Fatal("a made-up code worked")
	}
}

func TestSealedSecretsOpenOnlyWithTheKeyAndForTheirAccount(t *testing.T) {
	issuer := func() *Issuer {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		i, err := newIssuer("https://chat.example.com", k, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	one := issuer()
	s, err := newSealer(one)
	if err != nil {
		t.Fatal(err)
	}
	sealed := s.seal("sub-a", "JBSWY3DPEHPK3PXP")
	if strings.Contains(string(sealed), "JBSWY3DPEHPK3PXP") {
		t.Fatal("the secret is readable in its sealed form")
	}
	if got, err := s.open("sub-a", sealed); err != nil || got != "JBSWY3DPEHPK3PXP" {
		t.Fatalf("open = %q, %v", got, err)
	}
	if _, err := s.open("sub-b", sealed); err == nil {
		t.Fatal("a sealed secret opened for another account")
	}
	other, _ := newSealer(issuer())
	if _, err := other.open("sub-a", sealed); err == nil {
		t.Fatal("a sealed secret opened with another key")
	}
}

// TestFullStoreEvictsFromTheNetworkHoldingTheMost: with every place taken, a new sign-in makes
// room by dropping the oldest of the network (an IPv6 /48) holding the most, never a request
// of a network that holds one.
func TestFullStoreEvictsFromTheNetworkHoldingTheMost(t *testing.T) {
	p := &Provider{now: time.Now}
	s := newOPStorage(p, nil)
	s.max, s.maxPerAddr = 50, 10
	at := func(addr string) clientNet { return clientNet{addr: addr, net: netKey(addr)} }
	person := &authRequest{}
	s.add(person, at("198.51.100.9"))
	// A flood from 60 addresses of one /56: 10 each at most, 49 kept places in all.
	for i := range 60 {
		for range 3 {
			s.add(&authRequest{}, at(fmt.Sprintf("2001:db8:aa:bb%02x::1", i)))
		}
	}
	if len(s.requests) != 50 {
		t.Fatalf("%d requests kept, want 50", len(s.requests))
	}
	if _, ok := s.requests[person.id]; !ok {
		t.Fatal("the flood pushed out the person's sign-in")
	}
	// A newcomer from elsewhere gets a place too, at the flood's expense.
	late := &authRequest{}
	s.add(late, at("203.0.113.5"))
	if _, ok := s.requests[late.id]; !ok || len(s.requests) != 50 {
		t.Fatalf("the newcomer: kept %v, %d requests", ok, len(s.requests))
	}
	if _, ok := s.requests[person.id]; !ok {
		t.Fatal("the newcomer pushed out the person's sign-in")
	}
}

func TestDeviceNames(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0":                                                                  "Firefox on Linux",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36 Edg/130.0":                   "Edge on Windows",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1": "Safari on iPhone",
		"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36":                                "Chrome on Android",
		"curl/8.5": "Unknown browser",
	} {
		if got := deviceName(ua); got != want {
			t.Errorf("deviceName(%q) = %q, want %q", ua, got, want)
		}
	}
}
