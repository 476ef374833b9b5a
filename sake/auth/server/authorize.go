package server

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// requestURIPrefix starts every request_uri of a pushed authorization
// request (RFC 9126 §2.2).
const requestURIPrefix = "urn:ietf:params:oauth:request_uri:"

// maxParam bounds a single authorization parameter.
const maxParam = 4096

// readForm parses a bounded form body (and the query) and refuses
// repeated parameters (RFC 6749 §3.1).
func readForm(w http.ResponseWriter, r *http.Request) *oauthError {
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, DefaultMaxBody)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
			return oerr(ErrInvalidRequest, "the body must be application/x-www-form-urlencoded")
		}
	}
	if err := r.ParseForm(); err != nil {
		return oerr(ErrInvalidRequest, "the request cannot be parsed")
	}
	for k, v := range r.Form {
		if len(v) > 1 && k != "resource" {
			return oerr(ErrInvalidRequest, "parameter "+k+" is repeated")
		}
		for _, x := range v {
			if len(x) > maxParam {
				return oerr(ErrInvalidRequest, "parameter "+k+" is too long")
			}
		}
	}
	return nil
}

// authorize is the authorization endpoint (OAuth 2.1 §4.1.1).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if e := readForm(w, r); e != nil {
		s.errorPage(w, r, e)
		return
	}
	q := r.Form
	ctx := r.Context()
	var g *Grant
	if uri := q.Get("request_uri"); uri != "" {
		// A pushed request: everything comes from what was pushed.
		if !strings.HasPrefix(uri, requestURIPrefix) {
			s.errorPage(w, r, oerr(ErrInvalidRequestURI, "request_uri is not one this server issued"))
			return
		}
		hash := hashHandle(strings.TrimPrefix(uri, requestURIPrefix))
		bad := oerr(ErrInvalidRequestURI, "request_uri is unknown, expired, already used or for another client")
		cred, err := s.store.Credential(ctx, hash)
		if err != nil || cred.Kind != KindRequest || cred.Grant.ClientID != q.Get("client_id") {
			s.errorPage(w, r, bad)
			return
		}
		if cred, err = s.store.Consume(ctx, hash); err != nil || cred.Used {
			s.errorPage(w, r, bad)
			return
		}
		_ = s.store.Delete(ctx, cred.Hash)
		g = &cred.Grant
	} else {
		client, e := s.client(ctx, q.Get("client_id"))
		if e != nil {
			s.errorPage(w, r, e)
			return
		}
		redirect, ok := matchRedirect(client, q.Get("redirect_uri"))
		if !ok {
			s.errorPage(w, r, oerr(ErrInvalidRequest, "redirect_uri is missing or not registered for this client"))
			return
		}
		ng := Grant{ClientID: client.ID, RedirectURI: redirect, RedirectGiven: q.Get("redirect_uri") != "", State: q.Get("state")}
		// From here on errors go back to the verified redirect URI.
		if e := s.parseAuthorization(q, client, &ng); e != nil {
			s.redirectError(w, r, &ng, e)
			return
		}
		g = &ng
	}
	g.Created = s.now()
	id := randomToken(32)
	cred := &Credential{Hash: hashHandle(id), Kind: KindRequest, Expires: s.now().Add(s.cfg.RequestTTL), Grant: *g}
	if err := s.store.PutCredential(ctx, cred); err != nil {
		s.storeFailure(w, r, g, err)
		return
	}
	s.proceed(w, r, id, cred)
}

// storeFailure answers a store error on a browser path.
func (s *Server) storeFailure(w http.ResponseWriter, r *http.Request, g *Grant, err error) {
	if errors.Is(err, ErrStoreFull) {
		s.redirectError(w, r, g, oerr(ErrTemporarilyUnavailable, "the server is busy; try again later"))
		return
	}
	s.log.Error("authserver: store", "err", err)
	s.redirectError(w, r, g, oerr(ErrServerError, "the request cannot be stored"))
}

// parseAuthorization checks the authorization parameters other than
// client_id, redirect_uri and state into g.
func (s *Server) parseAuthorization(q url.Values, client *Client, g *Grant) *oauthError {
	if rt := q.Get("response_type"); rt != "code" {
		if rt == "" {
			return oerr(ErrInvalidRequest, "response_type is missing")
		}
		return oerr(ErrUnsupportedResponseType, "only response_type=code is supported")
	}
	if m := q.Get("response_mode"); m != "" && m != "query" {
		return oerr(ErrInvalidRequest, "only response_mode=query is supported")
	}
	if q.Has("request") {
		return oerr("request_not_supported", "request objects are not supported; use pushed authorization requests")
	}
	if !client.allows("authorization_code") {
		return oerr(ErrUnauthorizedClient, "this client may not use the authorization code grant")
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	switch {
	case challenge == "":
		return oerr(ErrInvalidRequest, "code_challenge is required (PKCE with S256)")
	case method != "S256":
		return oerr(ErrInvalidRequest, "code_challenge_method must be S256")
	case len(challenge) != 43 || !validVerifier(challenge):
		return oerr(ErrInvalidRequest, "code_challenge must be the base64url SHA-256 of the verifier")
	}
	g.CodeChallenge = challenge
	scopes, e := s.scopesFor(q.Get("scope"), q.Has("scope"), client)
	if e != nil {
		return e
	}
	g.Scopes = scopes
	res, e := s.resourcesFor(q["resource"])
	if e != nil {
		return e
	}
	g.Resource = res
	g.Nonce = q.Get("nonce")
	g.MaxAge = -1
	if ma := q.Get("max_age"); ma != "" {
		n, err := strconv.ParseInt(ma, 10, 64)
		if err != nil || n < 0 {
			return oerr(ErrInvalidRequest, "max_age must be a number of seconds")
		}
		g.MaxAge = n
	}
	g.ACRValues = strings.Fields(q.Get("acr_values"))
	g.Prompt = strings.Fields(q.Get("prompt"))
	for _, p := range g.Prompt {
		if p != "none" && p != "login" && p != "consent" {
			return oerr(ErrInvalidRequest, "prompt "+p+" is not supported")
		}
	}
	if slices.Contains(g.Prompt, "none") && len(g.Prompt) > 1 {
		return oerr(ErrInvalidRequest, "prompt=none cannot be combined")
	}
	return nil
}

// scopesFor checks requested scopes (or applies the defaults).
func (s *Server) scopesFor(raw string, given bool, client *Client) ([]string, *oauthError) {
	scopes := strings.Fields(raw)
	if !given || len(scopes) == 0 {
		scopes = slices.Clone(s.defaults)
		if len(client.Scopes) > 0 {
			scopes = slices.DeleteFunc(scopes, func(x string) bool { return !slices.Contains(client.Scopes, x) })
		}
	}
	if len(scopes) > 64 {
		return nil, oerr(ErrInvalidScope, "too many scopes")
	}
	out := make([]string, 0, len(scopes))
	for _, sc := range scopes {
		if _, ok := s.scopeDesc[sc]; !ok {
			return nil, oerr(ErrInvalidScope, "scope "+sc+" is unknown")
		}
		if len(client.Scopes) > 0 && !slices.Contains(client.Scopes, sc) {
			return nil, oerr(ErrInvalidScope, "this client may not ask for scope "+sc)
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// resourcesFor checks resource indicators (RFC 8707) against
// Config.Resources; none means the first.
func (s *Server) resourcesFor(raw []string) ([]string, *oauthError) {
	if len(raw) == 0 {
		return []string{s.resources[0]}, nil
	}
	if len(raw) > 8 {
		return nil, oerr(ErrInvalidTarget, "too many resources")
	}
	var out []string
	for _, r := range raw {
		c, err := canonicalResource(r)
		if err != nil {
			return nil, oerr(ErrInvalidTarget, err.Error())
		}
		c = strings.TrimSuffix(c, "/")
		found := ""
		for _, known := range s.resources {
			if strings.TrimSuffix(known, "/") == c {
				found = known
			}
		}
		if found == "" {
			return nil, oerr(ErrInvalidTarget, "resource "+r+" is not served by this authorization server")
		}
		if !slices.Contains(out, found) {
			out = append(out, found)
		}
	}
	return out, nil
}

// loginNeeded says whether the sign-in a does not meet the request: none,
// prompt=login, acr_values or max_age.
func loginNeeded(a *Authentication, g *Grant, now time.Time) bool {
	if a == nil || a.Subject == "" {
		return true
	}
	if slices.Contains(g.Prompt, "login") && a.AuthTime.Before(g.Created.Add(-time.Second)) {
		return true
	}
	if len(g.ACRValues) > 0 && !slices.Contains(g.ACRValues, a.ACR) {
		return true
	}
	if g.MaxAge >= 0 && (a.AuthTime.IsZero() || now.Sub(a.AuthTime) > time.Duration(g.MaxAge)*time.Second) {
		return true
	}
	return false
}

// proceed continues a pending request: sign-in, then consent (remembered
// or asked), then the code.
func (s *Server) proceed(w http.ResponseWriter, r *http.Request, id string, cred *Credential) {
	ctx := r.Context()
	g := &cred.Grant
	a, err := s.current(r)
	if err != nil {
		s.log.Error("authserver: Login.Current", "err", err)
		s.errorPage(w, r, oerr(ErrServerError, "the sign-in cannot be checked"))
		return
	}
	if loginNeeded(a, g, s.now()) {
		if slices.Contains(g.Prompt, "none") {
			s.finish(w, r, cred, func() { s.redirectError(w, r, g, oerr(ErrLoginRequired, "the person must sign in")) })
			return
		}
		if g.LoginTried && a != nil && a.Subject != "" {
			// Back from the login without the required strength or
			// freshness: do not loop.
			s.finish(w, r, cred, func() {
				s.redirectError(w, r, g, oerr(ErrAccessDenied, "the sign-in did not meet the requested acr_values or max_age"))
			})
			return
		}
		lr := LoginRequest{ReturnTo: s.consentURL(id), ACRValues: g.ACRValues, Force: slices.Contains(g.Prompt, "login")}
		if g.MaxAge >= 0 {
			d := time.Duration(g.MaxAge) * time.Second
			lr.MaxAge = &d
		}
		if c, e := s.client(ctx, g.ClientID); e == nil {
			lr.ClientName = c.displayName()
		}
		to, err := s.loginURL(r, lr)
		if err != nil {
			s.errorPage(w, r, oerr(ErrServerError, "the sign-in page cannot be found"))
			return
		}
		g.LoginTried = true
		if err := s.store.PutCredential(ctx, cred); err != nil {
			s.storeFailure(w, r, g, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	}
	g.Subject, g.ACR, g.AMR, g.AuthTime = a.Subject, a.ACR, a.AMR, a.AuthTime
	subj, err := s.lookup(ctx, a.Subject)
	if errors.Is(err, errHookPanicked) {
		s.errorPage(w, r, oerr(ErrServerError, "the account cannot be checked now"))
		return
	}
	if err != nil || subj == nil || !subj.Active {
		s.finish(w, r, cred, func() { s.redirectError(w, r, g, oerr(ErrAccessDenied, "this account may not authorize applications")) })
		return
	}
	if !slices.Contains(g.Prompt, "consent") {
		if granted, err := s.store.Consent(ctx, a.Subject, g.ClientID); err == nil && containsAll(granted, g.Scopes) {
			s.finish(w, r, cred, func() { s.issueCode(w, r, g) })
			return
		}
	}
	if slices.Contains(g.Prompt, "none") {
		s.finish(w, r, cred, func() { s.redirectError(w, r, g, oerr(ErrConsentRequired, "the person must consent")) })
		return
	}
	s.renderConsent(w, r, id, g)
}

// finish forgets a pending request (it is single-use) and answers.
func (s *Server) finish(_ http.ResponseWriter, r *http.Request, cred *Credential, answer func()) {
	_ = s.store.Delete(r.Context(), cred.Hash)
	answer()
}

func (s *Server) consentURL(id string) string {
	return s.endpoint(pathConsent) + "?request=" + url.QueryEscape(id)
}

// issueCode stores a code for the approved grant and redirects back with
// it, the state and iss.
func (s *Server) issueCode(w http.ResponseWriter, r *http.Request, g *Grant) {
	code := randomToken(32)
	cred := &Credential{Hash: hashHandle(code), Kind: KindCode, Family: randomToken(16),
		Expires: s.now().Add(s.cfg.CodeTTL), Grant: *g}
	cred.Grant.Approved = true
	if err := s.recordGrant(r, g.Subject, cred.Family); err != nil {
		s.log.Error("authserver: Login.Granted", "err", err)
		s.redirectError(w, r, g, oerr(ErrServerError, "the sign-in cannot be recorded for this authorization"))
		return
	}
	if err := s.store.PutCredential(r.Context(), cred); err != nil {
		s.storeFailure(w, r, g, err)
		return
	}
	s.clientAuthorized(r.Context(), g.ClientID, nil)
	s.redirectBack(w, r, g, url.Values{"code": {code}})
}
