package auth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"hearth/keyfile"
	"io/fs"
	"os"
	"path/filepath"
)

// IssuerKeyFile holds the local issuer's private key, PKCS #8 in PEM, in the data directory.
const IssuerKeyFile = "issuer-key"

// loadOrCreateKey reads the issuer's P-256 key at path, or makes one if there is none.
func loadOrCreateKey(path string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		return parseKey(path, data)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the issuer key: %w", err)
	}
	return createKey(path)
}

// createKey writes a new key to path once (keyfile.WriteOnce): a crash leaves no half-written
// key, and when two processes race (the server and "hearth token" on a fresh data directory)
// both end up with the one key that won.
func createKey(path string) (*ecdsa.PrivateKey, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the data directory: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the issuer key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode the issuer key: %w", err)
	}
	data, err := keyfile.WriteOnce(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		return nil, fmt.Errorf("write the issuer key: %w", err)
	}
	// Another process may have written its key first: that one is the key.
	return parseKey(path, data)
}

// parseKey reads a key written by createKey. Anything else is refused with a message that
// says what to do, rather than silently replaced: a new key would end every login.
func parseKey(path string, data []byte) (*ecdsa.PrivateKey, error) {
	corrupt := func(why string) error {
		return fmt.Errorf("%s is not a valid issuer key (%s); if it is damaged, move it away and a new key will be made (every login token signed with the old key then stops working)", path, why)
	}
	block, rest := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, corrupt(`expected one PEM block of type "PRIVATE KEY"`)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, corrupt("unexpected data after the PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, corrupt(err.Error())
	}
	key, ok := k.(*ecdsa.PrivateKey)
	if !ok || key.Curve != elliptic.P256() {
		return nil, corrupt("expected an ECDSA P-256 key")
	}
	return key, nil
}
