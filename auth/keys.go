package auth

import (
	"fmt"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
)

// allowedAlgorithm lists the asymmetric signature algorithms a token may use. It is the
// defence against "none" and against HS256 signed with a public key as the secret: a
// token's alg is checked here before any key is looked at.
func allowedAlgorithm(alg jwa.SignatureAlgorithm) bool {
	switch alg {
	case jwa.RS256, jwa.RS384, jwa.RS512, jwa.PS256, jwa.PS384, jwa.PS512, jwa.ES256, jwa.ES384, jwa.EdDSA:
		return true
	}
	return false
}

// pickKey finds the key a token names. A token without kid is accepted only when the issuer
// publishes exactly one key, so there is nothing to choose.
func pickKey(set jwk.Set, kid string) (jwk.Key, bool) {
	if kid != "" {
		return set.LookupKeyID(kid)
	}
	if set.Len() == 1 {
		return set.Key(0)
	}
	return nil, false
}

// checkKeyFits refuses to verify a token's alg with a key that was not made for it. A key
// that states its alg must match exactly; a key without one (jwx would otherwise refuse it,
// or infer an algorithm for it) must be of the family alg belongs to, and never symmetric.
func checkKeyFits(key jwk.Key, alg jwa.SignatureAlgorithm) error {
	mismatch := fail(ErrAlgorithm, fmt.Sprintf("signing algorithm %s does not fit signing key %s", alg, printable(key.KeyID())))
	if use := key.KeyUsage(); use != "" && use != jwk.ForSignature.String() {
		return mismatch
	}
	if ka := key.Algorithm().String(); ka != "" {
		if ka != alg.String() {
			return mismatch
		}
	}
	var ok bool
	switch k := key.(type) {
	case jwk.RSAPublicKey:
		switch alg {
		case jwa.RS256, jwa.RS384, jwa.RS512, jwa.PS256, jwa.PS384, jwa.PS512:
			ok = true
		}
	case jwk.ECDSAPublicKey:
		ok = (alg == jwa.ES256 && k.Crv() == jwa.P256) || (alg == jwa.ES384 && k.Crv() == jwa.P384)
	case jwk.OKPPublicKey:
		ok = alg == jwa.EdDSA && k.Crv() == jwa.Ed25519
	}
	if !ok {
		return mismatch
	}
	return nil
}
