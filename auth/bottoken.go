package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// botTokenPrefix marks bot tokens, so that they are told apart from JWTs (which start with
// "eyJ") without a lookup, and so that secret scanners can recognise a leaked one.
const botTokenPrefix = "hb_"

// botTokenBytes is the randomness of a bot token: 256 bits.
const botTokenBytes = 32

// IsBotToken says whether token has the shape of a bot token (it may still be unknown).
func IsBotToken(token string) bool {
	return strings.HasPrefix(token, botTokenPrefix)
}

// HashBotToken is what the server stores of a bot token: the SHA-256 of the whole token,
// prefix included. The token has 256 random bits, so a fast hash is enough; no salt or
// stretching is needed as it would be for a password.
func HashBotToken(token string) [32]byte {
	return sha256.Sum256([]byte(token))
}

// NewBotToken makes a bot token: "hb_" and 256 bits from crypto/rand in unpadded base64url,
// so it is safe in URLs and headers as is. The token is shown once; keep only the hash.
func NewBotToken() (token string, hash [32]byte, err error) {
	b := make([]byte, botTokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", [32]byte{}, err
	}
	token = botTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashBotToken(token), nil
}
