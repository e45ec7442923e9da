package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/auth/authtest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

type issuersDoc struct {
	Issuers []struct {
		Issuer   string `json:"issuer"`
		ClientID string `json:"client_id"`
		BuiltIn  bool   `json:"built_in"`
	} `json:"issuers"`
}

func getIssuers(t *testing.T, s *webtest.Server) issuersDoc {
	t.Helper()
	res := s.OAuth().Get(t, "/oauth/issuers")
	var doc issuersDoc
	if res.Status != http.StatusOK || json.Unmarshal([]byte(res.Body), &doc) != nil {
		t.Fatalf("/oauth/issuers: %d %s", res.Status, res.Body)
	}
	return doc
}

// TestExternalIssuerSignIn runs the browser client's sign-in with an external trusted issuer,
// a small OpenID provider on loopback: the issuers document gives its client id, its discovery
// document its endpoints, and its token works on the Connect API once the person joined.
func TestExternalIssuerSignIn(t *testing.T) {
	t.Parallel()
	idp := authtest.NewProvider(t, "hearth-at-idp", "", "victor")
	s := webtest.Start(t)
	s.Join("owner")
	idp.SetAudience(s.URL)
	idp.SetRedirectURI(s.URL + "/app/")
	// -oidc-client makes the issuer trusted too.
	s.SetOIDCClients(auth.OIDCClient{Issuer: idp.URL(), ClientID: "hearth-at-idp"})
	info, err := s.Client("").Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil || !slices.Contains(info.Msg.GetTrustedIssuers(), idp.URL()) {
		t.Fatalf("trusted issuers = %v, %v", info.Msg.GetTrustedIssuers(), err)
	}

	// 1. Which issuers, with which client ids: no token needed.
	doc := getIssuers(t, s)
	if len(doc.Issuers) != 2 || doc.Issuers[0].Issuer != s.URL || doc.Issuers[0].ClientID != "hearth-web" || !doc.Issuers[0].BuiltIn ||
		doc.Issuers[1].Issuer != idp.URL() || doc.Issuers[1].ClientID != "hearth-at-idp" || doc.Issuers[1].BuiltIn {
		t.Fatalf("issuers = %+v", doc)
	}
	ext := doc.Issuers[1]

	// 2. The issuer's endpoints, from its discovery document.
	o := s.OAuth()
	var meta struct {
		Authorization string `json:"authorization_endpoint"`
		Token         string `json:"token_endpoint"`
	}
	if err := json.Unmarshal([]byte(o.Get(t, ext.Issuer+"/.well-known/openid-configuration").Body), &meta); err != nil {
		t.Fatal(err)
	}

	// 3. The same authorization request as for the built-in issuer, with its client id.
	q := o.AuthorizeQuery(url.Values{"client_id": {ext.ClientID}})
	code := o.Code(t, o.Get(t, meta.Authorization+"?"+q.Encode()))
	res, err := http.PostForm(meta.Token, url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {o.RedirectURI},
		"client_id": {ext.ClientID}, "code_verifier": {o.Verifier},
	})
	if err != nil {
		t.Fatal(err)
	}
	var tok webtest.Tokens
	json.NewDecoder(res.Body).Decode(&tok)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || tok.AccessToken == "" {
		t.Fatalf("token: %d %+v", res.StatusCode, tok)
	}

	// 4. Not a member yet; Join, then the token works.
	c := s.Client(tok.AccessToken)
	if _, err := c.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); codeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("GetMe before Join: %v", err)
	}
	joined, err := c.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	if err != nil || !joined.Msg.GetCreated() || joined.Msg.GetMember().GetUsername() != "victor" {
		t.Fatalf("Join: %v %v", joined, err)
	}
	if me, err := c.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil || me.Msg.GetMember().GetId() != joined.Msg.GetMember().GetId() {
		t.Fatalf("GetMe: %v %v", me, err)
	}
}

func TestIssuersDocumentWithoutExternalIssuers(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	doc := getIssuers(t, s)
	if len(doc.Issuers) != 1 || doc.Issuers[0].Issuer != s.URL || doc.Issuers[0].ClientID != "hearth-web" {
		t.Fatalf("issuers = %+v", doc)
	}
}
