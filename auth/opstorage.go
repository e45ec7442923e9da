package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"hearth/engine/ratelimit"
)

// Lifetimes of the built-in issuer's tokens (DECISIONS.md).
const (
	accessTokenTTL  = time.Hour
	refreshTokenTTL = 30 * 24 * time.Hour
	// codeTTL is how long an authorization code may wait for its exchange.
	codeTTL = 5 * time.Minute
	// authRequestTTL is how long a person may take over the sign-in page.
	authRequestTTL = 30 * time.Minute
	// maxAuthRequests bounds the authorization requests kept in memory: anyone can start one.
	maxAuthRequests = 10_000
	// maxAuthRequestsPerAddr bounds one client address's share of them (an IPv6 address's /64
	// counts as one), so that one host looping over the authorize endpoint drops its own
	// oldest requests, not the pages other people are filling in.
	maxAuthRequestsPerAddr = 100
	// inviteParamMax bounds the invite parameter kept with a request (codes are 10 characters).
	inviteParamMax = 64
)

// opStorage is op.Storage for the built-in issuer. Authorization requests and codes live in
// memory: they last minutes, and a restart only makes a person start a sign-in again.
// Accounts and refresh tokens live in the AccountStore.
type opStorage struct {
	p      *Provider
	client *webClient

	mu       sync.Mutex
	requests map[string]*authRequest
	// made counts the requests made, to order them (authRequest.order).
	made uint64
	// codes maps each code made to its request, until a while after it expired, so that a
	// second use is recognised (and revokes what the first use was given).
	codes map[string]*authRequest
	// max and maxPerAddr bound the requests kept (maxAuthRequests, maxAuthRequestsPerAddr).
	max, maxPerAddr int
}

var _ op.Storage = (*opStorage)(nil)

func newOPStorage(p *Provider, client *webClient) *opStorage {
	return &opStorage{p: p, client: client, requests: map[string]*authRequest{}, codes: map[string]*authRequest{},
		max: maxAuthRequests, maxPerAddr: maxAuthRequestsPerAddr}
}

type inviteKey struct{}

type addrKey struct{}

// clientNet is where an authorization request came from: its address as the per-address
// limits count it (ratelimit.AddrKey: an IPv6 address's /64 is one host), and its network
// (netKey: an IPv6 /48), by which a flood from many addresses of one site is told apart.
type clientNet struct{ addr, net string }

// withClientAddr carries the address an authorization request came from to
// CreateAuthRequest.
func withClientAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, addrKey{}, clientNet{addr: ratelimit.AddrKey(addr), net: netKey(addr)})
}

// withInvite carries the authorization request's invite parameter to CreateAuthRequest (op
// parses the standard parameters only).
func withInvite(ctx context.Context, invite string) context.Context {
	return context.WithValue(ctx, inviteKey{}, invite)
}

func randomID() string { return rand.Text() + rand.Text() }

func (s *opStorage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	// PKCE with S256 only: op accepts plain, and no PKCE at all until the exchange.
	if req.CodeChallenge == "" {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge is required: this client must use PKCE with code_challenge_method S256")
	}
	if req.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge_method must be S256")
	}
	// The browser client reads its answer from the query; op would also post a form or use
	// the fragment.
	if req.ResponseMode != "" && req.ResponseMode != oidc.ResponseModeQuery {
		return nil, oidc.ErrInvalidRequest().WithDescription("response_mode must be query")
	}
	// There is no session to sign in silently with.
	if slices.Contains(req.Prompt, oidc.PromptNone) {
		return nil, oidc.ErrLoginRequired().WithDescription("signing in needs the person: prompt=none is not possible")
	}
	invite, _ := ctx.Value(inviteKey{}).(string)
	from, _ := ctx.Value(addrKey{}).(clientNet)
	if len(invite) > inviteParamMax {
		invite = ""
	}
	a := &authRequest{
		req:      *req,
		audience: []string{s.p.issuer.URL(), req.ClientID},
		invite:   invite,
	}
	s.add(a, from)
	return a, nil
}

// add keeps a new request, making room under a flood: when the address has its share, its own
// oldest request goes; when all the room is taken, the oldest request of the network (an IPv6
// /48, an IPv4 address) holding the most goes. A flood, from one address or from a whole
// network of them, so only ever pushes out its own requests, never the page another person is
// filling in. Memory stays bounded either way.
func (s *opStorage) add(a *authRequest, from clientNet) {
	now := s.p.now()
	a.id, a.created, a.addr, a.net = randomID(), now, from.addr, from.net
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	s.made++
	a.order = s.made
	var oldestOfAddr *authRequest
	fromAddr := 0
	perNet := map[string]int{}
	for _, r := range s.requests {
		perNet[r.net]++
		if r.addr == a.addr {
			fromAddr++
			if oldestOfAddr == nil || r.order < oldestOfAddr.order {
				oldestOfAddr = r
			}
		}
	}
	switch {
	case fromAddr >= s.maxPerAddr:
		delete(s.requests, oldestOfAddr.id)
	case len(s.requests) >= s.max:
		// The network holding the most (its own, if it is the one) makes room.
		perNet[a.net]++
		top := a.net
		for n, c := range perNet {
			if c > perNet[top] || (c == perNet[top] && n < top) {
				top = n
			}
		}
		var oldest *authRequest
		for _, r := range s.requests {
			if r.net == top && (oldest == nil || r.order < oldest.order) {
				oldest = r
			}
		}
		if oldest == nil {
			// Every network holds one request, the newcomer's none: ten thousand networks at
			// once, where nobody can be told apart; the oldest of all goes.
			for _, r := range s.requests {
				if oldest == nil || r.order < oldest.order {
					oldest = r
				}
			}
		}
		delete(s.requests, oldest.id)
	}
	s.requests[a.id] = a
}

// sweep drops expired requests and codes. The caller holds mu.
func (s *opStorage) sweep(now time.Time) {
	for id, r := range s.requests {
		if now.Sub(r.created) > authRequestTTL {
			delete(s.requests, id)
		}
	}
	for code, r := range s.codes {
		if now.Sub(r.created) > authRequestTTL+codeTTL {
			delete(s.codes, code)
		}
	}
}

// request returns a request by id, done or not.
func (s *opStorage) request(id string) (*authRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok || s.p.now().Sub(r.created) > authRequestTTL {
		return nil, false
	}
	return r, true
}

// pending returns a request by id that nobody signed in to yet. Only the fields set when it
// was made may be read from it without mu.
func (s *opStorage) pending(id string) (*authRequest, bool) {
	r, ok := s.request(id)
	if !ok {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return r, !r.done
}

// complete marks a request signed in as subject, how (amr) and from which browser. It fails
// if the request is gone or done.
func (s *opStorage) complete(id, subject string, amr []string, userAgent, device string) (*authRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok || r.done || s.p.now().Sub(r.created) > authRequestTTL {
		return nil, false
	}
	r.subject, r.authTime, r.done = subject, s.p.now(), true
	r.amr, r.userAgent, r.device = amr, userAgent, device
	r.step, r.ceremony = step{}, nil
	return r, true
}

// forget drops a request (the person cancelled).
func (s *opStorage) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
}

var errAuthRequestGone = errors.New("the sign-in request has expired or is unknown")

func (s *opStorage) AuthRequestByID(ctx context.Context, id string) (op.AuthRequest, error) {
	r, ok := s.request(id)
	if !ok {
		return nil, errAuthRequestGone
	}
	return r, nil
}

func (s *opStorage) SaveAuthCode(ctx context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return errAuthRequestGone
	}
	// One code per request: the sign-in page answers once.
	if r.code != "" {
		return oidc.ErrInvalidRequest().WithDescription("a code was issued for this request already")
	}
	r.code = code
	s.codes[code] = r
	return nil
}

// AuthRequestByCode hands out a code's request once. A second use fails and revokes the
// refresh tokens the first use was given (RFC 6749, section 4.1.2): it means the code leaked.
func (s *opStorage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	r, ok := s.codes[code]
	if !ok {
		s.mu.Unlock()
		return nil, errors.New("unknown code")
	}
	if r.codeSpent {
		family, subject := r.family, r.subject
		s.mu.Unlock()
		if family != "" {
			if err := s.p.signOutDevice(ctx, subject, family); err != nil {
				s.p.log.Error("revoke the tokens of a reused code", "err", err)
			}
		}
		return nil, errors.New("the code was used already; the tokens issued for it are revoked")
	}
	// Spent from now on, whatever the exchange's outcome (a wrong code_verifier included).
	r.codeSpent = true
	expired := s.p.now().Sub(r.authTime) > codeTTL
	s.mu.Unlock()
	if expired {
		return nil, errors.New("the code has expired")
	}
	return r, nil
}

func (s *opStorage) DeleteAuthRequest(ctx context.Context, id string) error {
	s.forget(id)
	return nil
}

// account returns the account behind a token request, which must still be able to sign in.
func (s *opStorage) account(ctx context.Context, subject string) (Account, error) {
	a, err := s.p.accounts.Account(ctx, subject)
	if errors.Is(err, ErrAccountNotFound) || (err == nil && a.Pending) {
		return Account{}, oidc.ErrInvalidGrant().WithDescription("the account does not exist")
	}
	return a, err
}

func (s *opStorage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	if _, err := s.account(ctx, req.GetSubject()); err != nil {
		return "", time.Time{}, err
	}
	return rand.Text(), s.p.now().Add(accessTokenTTL), nil
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

func (s *opStorage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	now := s.p.now()
	token := "hr_" + randomID()
	next := RefreshToken{
		Hash:     hashToken(token),
		Subject:  req.GetSubject(),
		Scopes:   req.GetScopes(),
		IssuedAt: now,
		Expires:  now.Add(refreshTokenTTL),
	}
	switch r := req.(type) {
	case *authRequest:
		acc, err := s.account(ctx, r.subject)
		if err != nil {
			return "", "", time.Time{}, err
		}
		next.Family, next.Epoch = rand.Text(), acc.TokenEpoch
		next.ClientID, next.AuthTime, next.AMR = r.GetClientID(), r.authTime, r.GetAMR()
		s.mu.Lock()
		r.family = next.Family
		s.mu.Unlock()
		if err := s.p.accounts.PutRefreshToken(ctx, next); err != nil {
			return "", "", time.Time{}, err
		}
		s.p.recordDevice(ctx, r, next)
	case *refreshRequest:
		if err := s.checkRefresh(ctx, r); err != nil {
			return "", "", time.Time{}, err
		}
		old := r.token
		next.Family, next.Epoch = old.Family, old.Epoch
		next.ClientID, next.AuthTime, next.AMR = old.ClientID, old.AuthTime, old.AMR
		err := s.p.accounts.RotateRefreshToken(ctx, old.Hash, next)
		if errors.Is(err, ErrTokenSpent) {
			// A concurrent use of the same token won: this one is a reuse.
			return "", "", time.Time{}, s.reused(ctx, old)
		}
		if err != nil {
			return "", "", time.Time{}, err
		}
		if err := s.p.security.TouchDevice(ctx, next.Subject, next.Family, now, next.Expires); err != nil {
			s.p.log.Error("record a device's refresh", "err", err)
		}
	default:
		return "", "", time.Time{}, oidc.ErrUnsupportedGrantType()
	}
	return rand.Text(), token, now.Add(accessTokenTTL), nil
}

// reused revokes the family of a refresh token presented after it was spent.
func (s *opStorage) reused(ctx context.Context, t RefreshToken) error {
	if err := s.p.signOutDevice(ctx, t.Subject, t.Family); err != nil {
		return err
	}
	s.p.log.Warn("a spent refresh token was presented again: its family is revoked", "subject", t.Subject)
	return oidc.ErrInvalidGrant().WithDescription("the refresh token was used already; every token of this sign-in is revoked, sign in again")
}

// TokenRequestByRefreshToken only looks the token up: its checks run in
// CreateAccessAndRefreshTokens, whose errors reach the client with their description (op
// drops the description of errors from here).
func (s *opStorage) TokenRequestByRefreshToken(ctx context.Context, token string) (op.RefreshTokenRequest, error) {
	t, err := s.p.accounts.RefreshToken(ctx, hashToken(token))
	r := &refreshRequest{token: t, audience: []string{s.p.issuer.URL(), t.ClientID}, scopes: t.Scopes}
	switch {
	case errors.Is(err, ErrTokenNotFound):
		r.token.ClientID = WebClientID
		r.refused = oidc.ErrInvalidGrant().WithDescription("unknown refresh token")
	case err != nil:
		return nil, err
	}
	return r, nil
}

// checkRefresh decides whether a refresh token may be exchanged. A spent one revokes its
// family: it was copied, and either copy may be the thief's.
func (s *opStorage) checkRefresh(ctx context.Context, r *refreshRequest) error {
	t := r.token
	switch {
	case r.refused != nil:
		return r.refused
	case t.Spent:
		return s.reused(ctx, t)
	case t.FamilyRevoked:
		return oidc.ErrInvalidGrant().WithDescription("the refresh token is revoked")
	case !s.p.now().Before(t.Expires):
		return oidc.ErrInvalidGrant().WithDescription("the refresh token has expired")
	}
	acc, err := s.account(ctx, t.Subject)
	if err != nil {
		return err
	}
	if acc.TokenEpoch != t.Epoch {
		return oidc.ErrInvalidGrant().WithDescription("the refresh token is revoked (signed out, or the password changed)")
	}
	return nil
}

// TerminateSession signs the account out everywhere.
func (s *opStorage) TerminateSession(ctx context.Context, userID, _ string) error {
	return s.signOut(ctx, userID)
}

func (s *opStorage) signOut(ctx context.Context, subject string) error {
	err := s.p.accounts.RevokeRefreshTokens(ctx, subject)
	if errors.Is(err, ErrAccountNotFound) {
		return nil
	}
	return err
}

// GetRefreshTokenInfo finds the account of a refresh token for the revocation endpoint.
func (s *opStorage) GetRefreshTokenInfo(ctx context.Context, _ string, token string) (string, string, error) {
	t, err := s.p.accounts.RefreshToken(ctx, hashToken(token))
	if errors.Is(err, ErrTokenNotFound) {
		return "", "", op.ErrInvalidRefreshToken
	}
	if err != nil {
		return "", "", err
	}
	return t.Subject, hex.EncodeToString(t.Hash), nil
}

// RevokeToken is sign-out: revoking any token of an account (a refresh token, or an access
// token of ours) revokes every refresh token of the account. An unknown token changes
// nothing and is no error (RFC 7009).
func (s *opStorage) RevokeToken(ctx context.Context, _ string, userID string, _ string) *oidc.Error {
	if userID == "" {
		return nil
	}
	if err := s.signOut(ctx, userID); err != nil {
		s.p.log.Error("sign out", "err", err)
		return oidc.ErrServerError()
	}
	return nil
}

func (s *opStorage) SigningKey(context.Context) (op.SigningKey, error) {
	return signingKey{s.p.issuer}, nil
}

func (s *opStorage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.ES256}, nil
}

func (s *opStorage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{s.p.issuer}}, nil
}

func (s *opStorage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	if id != WebClientID {
		// An OAuth error, not a plain one: op answers a plain error of a refresh grant with
		// 500 server_error, where the client's mistake is invalid_client (RFC 6749, 5.2).
		return nil, oidc.ErrInvalidClient().WithDescription("unknown client_id %q: this issuer's client is %s", printable(id), WebClientID)
	}
	return s.client, nil
}

// AuthorizeClientIDSecret refuses: the one client is public, it has no secret.
func (s *opStorage) AuthorizeClientIDSecret(context.Context, string, string) error {
	return errors.New("no client of this issuer has a secret")
}

// SetUserinfoFromScopes fills the ID token's user info: op copies its subject over the ID
// token's own, so without it the ID token would have no sub (which OpenID requires).
func (s *opStorage) SetUserinfoFromScopes(_ context.Context, info *oidc.UserInfo, userID, _ string, _ []string) error {
	info.Subject = userID
	return nil
}

func (s *opStorage) SetUserinfoFromToken(context.Context, *oidc.UserInfo, string, string, string) error {
	return errors.New("this issuer has no userinfo endpoint")
}

func (s *opStorage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("this issuer has no introspection endpoint")
}

// GetPrivateClaimsFromScopes puts the account's username and display name in access tokens,
// for Join's username and display name.
func (s *opStorage) GetPrivateClaimsFromScopes(ctx context.Context, userID, _ string, _ []string) (map[string]any, error) {
	a, err := s.account(ctx, userID)
	if err != nil {
		return nil, err
	}
	claims := map[string]any{"preferred_username": a.Username}
	if a.DisplayName != "" {
		claims["name"] = a.DisplayName
	}
	return claims, nil
}

func (s *opStorage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("this issuer takes no JWT client assertions")
}

func (s *opStorage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("this issuer takes no JWT profile grants")
}

func (s *opStorage) Health(context.Context) error { return nil }

// signingKey and publicKey hand the issuer's key to op, which signs with go-jose: the same
// key and kid as "hearth token", so the verifier checks both kinds alike.
type signingKey struct{ i *Issuer }

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.ES256 }
func (k signingKey) Key() any                                    { return k.i.private }
func (k signingKey) ID() string                                  { return k.i.key.KeyID() }

type publicKey struct{ i *Issuer }

func (k publicKey) ID() string                         { return k.i.key.KeyID() }
func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.ES256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.i.private.PublicKey }
