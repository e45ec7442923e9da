package web_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web/webtest"
)

// A push service on loopback, as a browser vendor runs one: it checks each push's VAPID
// header (RFC 8292: an ES256 JWT for the endpoint's origin, signed by the server's key) and
// decrypts its payload (RFC 8291, aes128gcm) with the keys of the device it was made for, the
// way a browser does, here with the standard library alone.

// pushDevice is one browser's subscription: the key pair and auth secret the payloads are
// encrypted for, and its endpoint at the push service.
type pushDevice struct {
	name     string
	priv     *ecdh.PrivateKey
	auth     []byte
	endpoint string
	// answers are the statuses the service gives this device's pushes, in order; after
	// them, 201.
	answers []int
	// hold, when set, makes the service wait for it before answering.
	hold chan struct{}
}

// receivedPush is a push the service accepted and decrypted.
type receivedPush struct {
	device  string
	header  http.Header
	payload map[string]string
	at      time.Time
}

type pushService struct {
	t      *testing.T
	srv    *httptest.Server
	vapid  *ecdsa.PublicKey
	vapidB string

	mu      sync.Mutex
	devices map[string]*pushDevice
	// tries counts the requests per device, answered or not.
	tries    map[string]int
	received chan receivedPush
}

// newPushService starts a push service that takes pushes signed with the server's VAPID key.
func newPushService(t *testing.T, vapidPublicKey string) *pushService {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(vapidPublicKey)
	if err != nil {
		t.Fatalf("the VAPID public key %q is not base64url: %v", vapidPublicKey, err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		t.Fatalf("the VAPID public key is not an uncompressed P-256 point: %v", err)
	}
	p := &pushService{t: t, vapid: pub, vapidB: vapidPublicKey, devices: map[string]*pushDevice{}, tries: map[string]int{}, received: make(chan receivedPush, 100)}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

// device makes a new device of the service.
func (p *pushService) device(name string) *pushDevice {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		p.t.Fatal(err)
	}
	d := &pushDevice{name: name, priv: priv, auth: make([]byte, 16), endpoint: p.srv.URL + "/push/" + name}
	rand.Read(d.auth)
	p.mu.Lock()
	p.devices[name] = d
	p.mu.Unlock()
	return d
}

// answer sets the statuses a device's next pushes get.
func (p *pushService) answer(d *pushDevice, statuses ...int) {
	p.mu.Lock()
	d.answers = append(d.answers, statuses...)
	p.mu.Unlock()
}

func (p *pushService) triesOf(d *pushDevice) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tries[d.name]
}

func (p *pushService) serve(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/push/")
	p.mu.Lock()
	d := p.devices[name]
	p.tries[name]++
	status := http.StatusCreated
	if d != nil && len(d.answers) > 0 {
		status, d.answers = d.answers[0], d.answers[1:]
	}
	p.mu.Unlock()
	if d == nil || r.Method != http.MethodPost {
		http.Error(w, "no such subscription", http.StatusNotFound)
		return
	}
	if d.hold != nil {
		<-d.hold
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 8192))
	if err != nil {
		p.t.Errorf("reading a push: %v", err)
		return
	}
	if err := p.checkVAPID(r.Header.Get("Authorization"), p.srv.URL); err != nil {
		p.t.Errorf("push to %s: VAPID: %v", name, err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if got := r.Header.Get("Content-Encoding"); got != "aes128gcm" {
		p.t.Errorf("push to %s: Content-Encoding %q", name, got)
	}
	plain, err := decryptPush(d, body)
	if err != nil {
		p.t.Errorf("push to %s: decrypting: %v", name, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if status != http.StatusCreated {
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "0")
		}
		w.WriteHeader(status)
		return
	}
	var payload map[string]string
	if err := json.Unmarshal(plain, &payload); err != nil {
		p.t.Errorf("push to %s: the payload is not a JSON object of strings: %v: %s", name, err, plain)
	}
	w.WriteHeader(http.StatusCreated)
	p.received <- receivedPush{device: name, header: r.Header.Clone(), payload: payload, at: time.Now()}
}

// checkVAPID checks an Authorization header of RFC 8292: "vapid t=<JWT>, k=<public key>", the
// key the server's, the JWT ES256-signed by it, for the push service's origin, expiring within
// a day, with a contact.
func (p *pushService) checkVAPID(h, origin string) error {
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return fmt.Errorf("authorization %q is not vapid", h)
	}
	var tok, key string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			tok = v
		case "k":
			key = v
		}
	}
	if key != p.vapidB {
		return fmt.Errorf("k=%q, want the server's key %q", key, p.vapidB)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return fmt.Errorf("t is not a JWT: %q", tok)
	}
	var head struct{ Alg, Typ string }
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	for i, v := range []any{&head, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return err
		}
	}
	if head.Alg != "ES256" {
		return fmt.Errorf("alg %q, want ES256", head.Alg)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return fmt.Errorf("signature of %d bytes (%v), want 64", len(sig), err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(p.vapid, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return fmt.Errorf("the JWT's signature does not verify with the server's VAPID key")
	}
	if claims.Aud != origin {
		return fmt.Errorf("aud %q, want %q", claims.Aud, origin)
	}
	if until := time.Until(time.Unix(claims.Exp, 0)); until <= 0 || until > 24*time.Hour {
		return fmt.Errorf("exp is %s from now; want within 24 hours", until)
	}
	if claims.Sub == "" || !(strings.HasPrefix(claims.Sub, "mailto:") || strings.HasPrefix(claims.Sub, "https:")) {
		return fmt.Errorf("sub %q is not a contact", claims.Sub)
	}
	return nil
}

// decryptPush decrypts an aes128gcm body (RFC 8188) with the keys of RFC 8291.
func decryptPush(d *pushDevice, body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, fmt.Errorf("body of %d bytes", len(body))
	}
	salt, idlen := body[:16], int(body[20])
	if idlen != 65 || len(body) < 21+idlen+17 {
		return nil, fmt.Errorf("key id of %d bytes", idlen)
	}
	senderPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		return nil, err
	}
	shared, err := d.priv.ECDH(senderPub)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), d.priv.PublicKey().Bytes()...), senderPub.Bytes()...)
	ikm, err := hkdf.Key(sha256.New, shared, d.auth, string(info), 32)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, body[21+idlen:], nil)
	if err != nil {
		return nil, err
	}
	// One record, the last: the content, a 0x02 delimiter, zero padding.
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 0x02 {
		return nil, fmt.Errorf("no last-record delimiter")
	}
	return plain[:len(plain)-1], nil
}

// next waits for the next push the service accepted.
func (p *pushService) next(t *testing.T) receivedPush {
	t.Helper()
	select {
	case r := <-p.received:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no push within 10 s")
	}
	return receivedPush{}
}

// none checks that no push arrives within a short while.
func (p *pushService) none(t *testing.T, what string) {
	t.Helper()
	select {
	case r := <-p.received:
		t.Fatalf("%s: a push arrived: %v", what, r.payload)
	case <-time.After(300 * time.Millisecond):
	}
}

// notifyClient is the NotificationService client of a member.
func notifyClient(s *webtest.Server, c *webtest.Client) svcv1connect.NotificationServiceClient {
	return svcv1connect.NewNotificationServiceClient(webtest.HTTPClient(), s.URL, connect.WithInterceptors(auth.WithBearer(c.Token)))
}

// subscribe registers a device for a member.
func subscribe(t *testing.T, n svcv1connect.NotificationServiceClient, d *pushDevice) string {
	t.Helper()
	res, err := n.AddPushSubscription(ctx, req(d.request()))
	if err != nil {
		t.Fatalf("subscribing %s: %v", d.name, err)
	}
	return res.Msg.GetId()
}

func (d *pushDevice) request() *svcv1.AddPushSubscriptionRequest {
	return &svcv1.AddPushSubscriptionRequest{
		Endpoint:   d.endpoint,
		P256Dh:     base64.RawURLEncoding.EncodeToString(d.priv.PublicKey().Bytes()),
		Auth:       base64.RawURLEncoding.EncodeToString(d.auth),
		DeviceName: d.name,
	}
}
