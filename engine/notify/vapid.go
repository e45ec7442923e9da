package notify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"hearth/keyfile"
	"io/fs"
	"os"
	"path/filepath"
)

// KeyFile is the name of the VAPID key pair's file in the data directory: the server's
// identity to push services (RFC 8292). Browsers bind each subscription to the public key, so
// the file is carried by backups (as every file of the data directory) and never replaced: a
// new key would silence every subscription.
const KeyFile = "vapid-key"

// keys is the server's VAPID key pair in the forms webpush-go takes: base64url without
// padding of the private scalar and of the uncompressed public point.
type keys struct {
	private, public string
}

// loadOrCreateKeys reads <dir>/vapid-key (a PKCS #8 P-256 private key in PEM), making it at
// the first start.
func loadOrCreateKeys(dir string) (keys, error) {
	path := filepath.Join(dir, KeyFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = createKeyFile(path)
	}
	if err != nil {
		return keys{}, fmt.Errorf("VAPID key: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "PRIVATE KEY" {
		return keys{}, fmt.Errorf("VAPID key %s is not a PEM private key: restore it from a backup (a new key stops every push subscription)", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	priv, ok := k.(*ecdsa.PrivateKey)
	if err != nil || !ok || priv.Curve != elliptic.P256() {
		return keys{}, fmt.Errorf("VAPID key %s is not a P-256 key: restore it from a backup", path)
	}
	d, err := priv.Bytes()
	if err != nil {
		return keys{}, err
	}
	pub, err := priv.PublicKey.Bytes()
	if err != nil {
		return keys{}, err
	}
	return keys{private: base64.RawURLEncoding.EncodeToString(d), public: base64.RawURLEncoding.EncodeToString(pub)}, nil
}

// createKeyFile makes a new key and writes it once (keyfile.WriteOnce): a crash never leaves
// half a key behind, and a key that appeared meanwhile wins.
func createKeyFile(path string) ([]byte, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return keyfile.WriteOnce(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// Topic is the Topic header of a channel's pushes (RFC 8030 5.4: at most 32 characters of the
// URL-safe base64 alphabet): the first 32 characters of base64url(SHA-256(channel id)). A push
// service keeps only the newest undelivered push of a topic, so a device that was offline gets
// one notification per channel, not a backlog.
func Topic(channelID string) string {
	sum := sha256.Sum256([]byte(channelID))
	return base64.RawURLEncoding.EncodeToString(sum[:24])
}
