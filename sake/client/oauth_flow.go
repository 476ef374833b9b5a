package client

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake/auth"
)

func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func dpopProof(key crypto.Signer, method, u, accessToken, nonce string, now time.Time) (string, error) {
	return auth.NewDPoPProofWithNonce(key, method, u, accessToken, nonce, now)
}

// client returns the client's identity at the authorization server:
// pre-registered, else its metadata document, else a dynamic
// registration (kept per issuer).
func (a *OAuthAuthorizer) client(ctx context.Context, as *asMeta) (*registration, error) {
	a.mu.Lock()
	r := a.clients[as.issuer]
	a.mu.Unlock()
	if r != nil {
		return r, nil
	}
	switch {
	case a.cfg.ClientID != "" && (a.cfg.Issuer == "" || a.cfg.Issuer == as.issuer):
		r = &registration{clientID: a.cfg.ClientID, secret: a.cfg.ClientSecret}
		r.authMethod = pickAuthMethod(as.tokenAuthMethods, r.secret != "", a.cfg.PrivateKey != nil)
	case a.cfg.ClientMetadataURL != "" && as.cimd:
		r = &registration{clientID: a.cfg.ClientMetadataURL, authMethod: "none"}
		if a.cfg.PrivateKey != nil {
			r.authMethod = "private_key_jwt"
		}
	case as.registrationEndpoint != "":
		var err error
		if r, err = a.register(ctx, as); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: %s: %w", ErrAuthorization, as.issuer, errNoClient)
	}
	a.mu.Lock()
	a.clients[as.issuer] = r
	a.mu.Unlock()
	return r, nil
}

// pickAuthMethod chooses how the client authenticates to the token
// endpoint among those the server supports (client_secret_basic when it
// says nothing, RFC 8414).
func pickAuthMethod(supported []string, secret, key bool) string {
	if len(supported) == 0 {
		supported = []string{"client_secret_basic"}
	}
	switch {
	case key && slices.Contains(supported, "private_key_jwt"):
		return "private_key_jwt"
	case secret && slices.Contains(supported, "client_secret_basic"):
		return "client_secret_basic"
	case secret && slices.Contains(supported, "client_secret_post"):
		return "client_secret_post"
	case !secret:
		return "none"
	}
	return "client_secret_basic"
}

// register registers the client dynamically (RFC 7591).
func (a *OAuthAuthorizer) register(ctx context.Context, as *asMeta) (*registration, error) {
	grants := []string{"authorization_code", "refresh_token"}
	if a.cfg.Device != nil && as.deviceEndpoint != "" {
		grants = append(grants, deviceCodeGrant)
		if a.cfg.RedirectURL == "" {
			grants = []string{deviceCodeGrant, "refresh_token"}
		}
	}
	switch {
	case a.cfg.Assertion != nil:
		grants = []string{jwtBearerGrant}
	case a.cfg.ClientCredentials:
		grants = []string{"client_credentials"}
	}
	method := "none"
	if a.cfg.ClientCredentials {
		method = pickAuthMethod(as.tokenAuthMethods, true, false)
	}
	body := map[string]any{
		"client_name":                a.cfg.ClientName,
		"grant_types":                grants,
		"token_endpoint_auth_method": method,
		"application_type":           applicationType(a.cfg.RedirectURL),
	}
	if !a.cfg.machine() && a.cfg.RedirectURL != "" {
		body["redirect_uris"] = []string{a.cfg.RedirectURL}
		body["response_types"] = []string{"code"}
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.registrationEndpoint, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: registering: %w", ErrAuthorization, err)
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%w: the registration endpoint answered %d: %.300s", ErrAuthorization, resp.StatusCode, rb)
	}
	var out struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(rb, &out); err != nil || out.ClientID == "" {
		return nil, fmt.Errorf("%w: the registration answer has no client_id: %.300s", ErrAuthorization, rb)
	}
	r := &registration{clientID: out.ClientID, secret: out.ClientSecret, authMethod: out.AuthMethod}
	if r.authMethod == "" {
		r.authMethod = pickAuthMethod(as.tokenAuthMethods, r.secret != "", false)
	}
	return r, nil
}

// applicationType is "native" for loopback redirects, else "web".
func applicationType(redirect string) string {
	u, err := url.Parse(redirect)
	if redirect == "" || (err == nil && (u.Hostname() == "127.0.0.1" || u.Hostname() == "localhost" || u.Hostname() == "::1" || u.Scheme != "https" && u.Scheme != "http")) {
		return "native"
	}
	return "web"
}

// codeFlow runs the authorization code grant with PKCE.
func (a *OAuthAuthorizer) codeFlow(ctx context.Context, d *discovery, scopes []string, su *stepUp) (*Token, error) {
	if a.cfg.Browser == nil || a.cfg.RedirectURL == "" {
		return nil, fmt.Errorf("%w: the server asks for authorization and the client has no Browser and RedirectURL to get it", ErrAuthorization)
	}
	p, err := a.beginCode(ctx, d, scopes, su)
	if err != nil {
		return nil, err
	}
	back, err := a.cfg.Browser(ctx, p.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAuthorization, err)
	}
	return a.completeCode(ctx, p, back)
}

// beginCode builds the authorization request of the code grant: its URL,
// and the state and PKCE verifier that its completion checks and sends.
func (a *OAuthAuthorizer) beginCode(ctx context.Context, d *discovery, scopes []string, su *stepUp) (*PendingSignIn, error) {
	as := d.as
	if as.documented && !slices.Contains(as.challengeMethods, "S256") {
		return nil, fmt.Errorf("%w: the authorization server %s does not offer PKCE with S256", ErrAuthorization, as.issuer)
	}
	if as.authorizationEndpoint == "" {
		return nil, fmt.Errorf("%w: the authorization server %s has no authorization endpoint", ErrAuthorization, as.issuer)
	}
	cl, err := a.client(ctx, as)
	if err != nil {
		return nil, err
	}
	verifier, state := randomString(), randomString()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {cl.clientID},
		"redirect_uri":          {a.cfg.RedirectURL},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"state":                 {state},
		"resource":              {d.resource},
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	if su != nil {
		if len(su.acr) > 0 {
			q.Set("acr_values", strings.Join(su.acr, " "))
		}
		if su.maxAge != nil {
			q.Set("max_age", fmt.Sprint(int64(su.maxAge.Seconds())))
		}
	}
	authURL := as.authorizationEndpoint
	if strings.Contains(authURL, "?") {
		authURL += "&" + q.Encode()
	} else {
		authURL += "?" + q.Encode()
	}
	return &PendingSignIn{URL: authURL, State: state, Resource: d.resource, Issuer: as.issuer,
		verifier: verifier, as: as, cl: cl, scopes: scopes, redirect: a.cfg.RedirectURL}, nil
}

// completeCode checks the authorization response back (state, iss,
// error, code) and trades its code for a token.
func (a *OAuthAuthorizer) completeCode(ctx context.Context, p *PendingSignIn, back *url.URL) (*Token, error) {
	as := p.as
	rq := back.Query()
	for _, k := range []string{"state", "code", "iss"} {
		if len(rq[k]) > 1 {
			return nil, fmt.Errorf("%w: the authorization response repeats %s", ErrAuthorization, k)
		}
	}
	if subtle.ConstantTimeCompare([]byte(rq.Get("state")), []byte(p.State)) != 1 {
		return nil, fmt.Errorf("%w: the authorization response's state does not match the request's", ErrAuthorization)
	}
	// RFC 9207: a present iss must be the issuer, by simple string
	// comparison; a server that announces iss must send it.
	if iss, ok := rq["iss"]; ok {
		if iss[0] != as.issuer {
			return nil, fmt.Errorf("%w: the authorization response comes from issuer %q, not %q", ErrAuthorization, iss[0], as.issuer)
		}
	} else if as.issSupported {
		return nil, fmt.Errorf("%w: the authorization server announces iss but its response has none", ErrAuthorization)
	}
	if e := rq.Get("error"); e != "" {
		return nil, fmt.Errorf("%w: the authorization server refused: %s %s", ErrAuthorization, e, rq.Get("error_description"))
	}
	code := rq.Get("code")
	if code == "" {
		return nil, fmt.Errorf("%w: the authorization response has no code", ErrAuthorization)
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {p.redirect},
		"code_verifier": {p.verifier},
		"resource":      {p.Resource},
	}
	return a.tokenRequest(ctx, as, p.cl, form, p.Resource, p.scopes)
}

// clientCredentials runs the client credentials grant.
// jwtBearerGrant is the grant type of RFC 7523 §2.1.
const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// jwtBearer takes a token with the JWT bearer grant, the assertion from
// the configuration's Assertion.
func (a *OAuthAuthorizer) jwtBearer(ctx context.Context, d *discovery, scopes []string) (*Token, error) {
	if len(d.as.grantTypes) > 0 && !slices.Contains(d.as.grantTypes, jwtBearerGrant) {
		return nil, fmt.Errorf("%w: the authorization server %s does not offer the JWT bearer grant (grant_types_supported %v)", ErrAuthorization, d.as.issuer, d.as.grantTypes)
	}
	assertion, err := a.cfg.Assertion(ctx, d.as.issuer, d.resource)
	if err != nil {
		return nil, fmt.Errorf("%w: getting the JWT assertion: %w", ErrAuthorization, err)
	}
	if assertion == "" {
		return nil, fmt.Errorf("%w: the Assertion function returned no JWT", ErrAuthorization)
	}
	cl, err := a.client(ctx, d.as)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {jwtBearerGrant}, "assertion": {assertion}, "resource": {d.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	return a.tokenRequest(ctx, d.as, cl, form, d.resource, scopes)
}

func (a *OAuthAuthorizer) clientCredentials(ctx context.Context, d *discovery, scopes []string) (*Token, error) {
	cl, err := a.client(ctx, d.as)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {d.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	return a.tokenRequest(ctx, d.as, cl, form, d.resource, scopes)
}

// refresh trades a refresh token for a new access token, at the issuer
// that issued it.
func (a *OAuthAuthorizer) refresh(ctx context.Context, t *Token) (*Token, error) {
	if t.RefreshToken == "" || t.Issuer == "" {
		return nil, fmt.Errorf("%w: no refresh token", ErrAuthorization)
	}
	md, err := auth.Discover(ctx, t.Issuer, a.cfg.HTTPClient)
	var as *asMeta
	if err == nil {
		as = &asMeta{issuer: md.Issuer, tokenEndpoint: md.TokenEndpoint, tokenAuthMethods: strs(md.Raw["token_endpoint_auth_methods_supported"])}
	} else {
		as = &asMeta{issuer: t.Issuer, tokenEndpoint: t.Issuer + "/token"}
	}
	a.mu.Lock()
	cl := a.clients[t.Issuer]
	a.mu.Unlock()
	if cl != nil && t.ClientID != "" && cl.clientID != t.ClientID {
		// The token was issued to another client (another process's
		// registration, over a shared store): refresh it as that client.
		cl = nil
	}
	if cl == nil && a.cfg.ClientID != "" && a.cfg.ClientID == t.ClientID && (a.cfg.Issuer == "" || a.cfg.Issuer == t.Issuer) {
		// The configured client, in a process that has not used it yet.
		cl = &registration{clientID: a.cfg.ClientID, secret: a.cfg.ClientSecret,
			authMethod: pickAuthMethod(as.tokenAuthMethods, a.cfg.ClientSecret != "", a.cfg.PrivateKey != nil)}
	}
	if cl == nil {
		cl = &registration{clientID: t.ClientID, authMethod: "none"}
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken}}
	if t.Resource != "" {
		form.Set("resource", t.Resource)
	}
	nt, err := a.tokenRequest(ctx, as, cl, form, t.Resource, t.Scopes)
	if err != nil {
		return nil, err
	}
	if nt.RefreshToken == "" {
		nt.RefreshToken = t.RefreshToken
	}
	if err := a.cfg.Store.Save(ctx, t.Resource, nt); err != nil {
		return nil, err
	}
	return nt, nil
}

// tokenRequest posts to the token endpoint with the client's
// authentication and reads the token.
func (a *OAuthAuthorizer) tokenRequest(ctx context.Context, as *asMeta, cl *registration, form url.Values, resource string, asked []string) (*Token, error) {
	var b []byte
	// A second round when the authorization server asks for a DPoP nonce
	// (RFC 9449 §8): the same request, with a new proof carrying it.
	for round := 0; ; round++ {
		req, err := a.tokenHTTPRequest(ctx, as, cl, form)
		if err != nil {
			return nil, err
		}
		resp, err := noRedirects(a.cfg.HTTPClient).Do(req)
		if err != nil {
			return nil, fmt.Errorf("%w: token request: %w", ErrAuthorization, err)
		}
		b, _ = io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
		resp.Body.Close()
		if a.cfg.DPoP != nil {
			a.rememberNonce(as.tokenEndpoint, resp.Header.Get("DPoP-Nonce"))
		}
		if resp.StatusCode == http.StatusOK {
			break
		}
		if round == 0 && a.cfg.DPoP != nil && resp.StatusCode == http.StatusBadRequest &&
			resp.Header.Get("DPoP-Nonce") != "" && oauthError(b) == "use_dpop_nonce" {
			continue
		}
		return nil, &tokenError{code: oauthError(b), msg: fmt.Sprintf("%v: the token endpoint answered %d%s: %.300s", ErrAuthorization, resp.StatusCode, redirectNote(resp), b)}
	}
	var tr struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		ExpiresIn    int64  `json:"expires_in"`
		RefreshToken string `json:"refresh_token"`
		Scope        string `json:"scope"`
	}
	if err := json.Unmarshal(b, &tr); err != nil || tr.AccessToken == "" {
		return nil, fmt.Errorf("%w: the token response has no access_token: %.300s", ErrAuthorization, b)
	}
	t := &Token{AccessToken: tr.AccessToken, TokenType: tr.TokenType, RefreshToken: tr.RefreshToken,
		Issuer: as.issuer, Resource: resource, ClientID: cl.clientID, Scopes: asked}
	if t.TokenType == "" {
		t.TokenType = "Bearer"
	}
	if tr.Scope != "" {
		t.Scopes = strings.Fields(tr.Scope)
	}
	if tr.ExpiresIn > 0 {
		t.Expiry = a.cfg.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return t, nil
}

// redirectNote says where a 3xx answer to a token request points: the
// client does not follow it, since the request carries the client's
// secrets. "" for another status.
func redirectNote(resp *http.Response) string {
	if resp.StatusCode/100 != 3 {
		return ""
	}
	to := resp.Header.Get("Location")
	if u, err := resp.Location(); err == nil {
		to = u.String()
	}
	return ", a redirect to " + to + " that is not followed with the client's credentials (the authorization server's metadata must name the final endpoint)"
}

// tokenHTTPRequest builds one token request with the client's
// authentication (a fresh assertion for private_key_jwt) and, with DPoP, a
// fresh proof carrying the authorization server's latest nonce.
func (a *OAuthAuthorizer) tokenHTTPRequest(ctx context.Context, as *asMeta, cl *registration, form url.Values) (*http.Request, error) {
	form = maps.Clone(form)
	header := http.Header{}
	switch cl.authMethod {
	case "client_secret_basic":
		header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(cl.clientID)+":"+url.QueryEscape(cl.secret))))
	case "client_secret_post":
		form.Set("client_id", cl.clientID)
		form.Set("client_secret", cl.secret)
	case "private_key_jwt":
		assertion, err := a.assertion(cl.clientID, as)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", cl.clientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", cl.clientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.tokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if a.cfg.DPoP != nil {
		proof, err := dpopProof(a.cfg.DPoP, http.MethodPost, as.tokenEndpoint, "", a.nonceFor(as.tokenEndpoint), a.cfg.Now())
		if err != nil {
			return nil, err
		}
		req.Header.Set("DPoP", proof)
	}
	return req, nil
}

// oauthError returns the "error" member of an OAuth error response.
func oauthError(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error
}

// assertion signs the client's JWT for private_key_jwt (RFC 7523).
func (a *OAuthAuthorizer) assertion(clientID string, as *asMeta) (string, error) {
	var method jwt.SigningMethod
	switch k := a.cfg.PrivateKey.(type) {
	case *ecdsa.PrivateKey:
		method = jwt.SigningMethodES256
		if k.Curve.Params().BitSize == 384 {
			method = jwt.SigningMethodES384
		}
	case *rsa.PrivateKey:
		method = jwt.SigningMethodRS256
	case ed25519.PrivateKey:
		method = jwt.SigningMethodEdDSA
	default:
		return "", fmt.Errorf("%w: unsupported private key type %T", ErrAuthorization, a.cfg.PrivateKey)
	}
	now := a.cfg.Now()
	aud := as.issuer
	if aud == "" {
		aud = as.tokenEndpoint
	}
	tok := jwt.NewWithClaims(method, jwt.MapClaims{"iss": clientID, "sub": clientID, "aud": aud,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": randomString()})
	if a.cfg.KeyID != "" {
		tok.Header["kid"] = a.cfg.KeyID
	}
	return tok.SignedString(a.cfg.PrivateKey)
}
