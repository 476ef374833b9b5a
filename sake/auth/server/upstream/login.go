package upstream

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"golang.org/x/oauth2"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// Cookie names.
const (
	sessionCookie = "sake_upstream_session"
	stateCookie   = "sake_upstream_login"
)

// kindState is the store's record of a login state, and kindSession of
// a sign-in whose tokens may go to one authorization: each consumed once.
const (
	kindState   server.Kind = "upstream_state"
	kindSession server.Kind = "upstream_session"
)

// Purposes of sealed values.
const (
	sealRequest = "login request"
	sealState   = "login state"
	sealSession = "session cookie"
	sealToken   = "upstream token"
)

// loginRequest is what LoginURL seals into the start URL.
type loginRequest struct {
	ReturnTo  string   `json:"r"`
	ACRValues []string `json:"acr,omitempty"`
	MaxAge    *int64   `json:"max_age,omitempty"`
	Force     bool     `json:"force,omitempty"`
	Expires   int64    `json:"exp"`
}

// pendingLogin is the state cookie: one sign-in under way at the
// provider, bound to this browser.
type pendingLogin struct {
	loginRequest
	State    string `json:"state"`
	Nonce    string `json:"nonce"`
	Verifier string `json:"verifier"`
	Started  int64  `json:"started"`
}

// session is the session cookie.
type session struct {
	ID       string   `json:"id"`
	Subject  string   `json:"sub"`
	ACR      string   `json:"acr,omitempty"`
	AMR      []string `json:"amr,omitempty"`
	AuthTime int64    `json:"auth_time"`
	Expires  int64    `json:"exp"`
}

// record is what the store keeps (sealed) for a sign-in or an
// authorization: the provider's tokens and who they are for.
type record struct {
	Token  *oauth2.Token `json:"token"`
	Person *Person       `json:"person"`
}

func sessionKey(id string) string { return "session:" + hash(id) }

// Mount adds the login's pages under Config.BaseURL's path: the start
// (GET), the callback (GET /callback) and sign-out (POST /logout).
func (l *Login) Mount(r chi.Router) {
	p := l.base.Path
	start := p
	if start == "" {
		start = "/"
	}
	r.Get(start, l.start)
	r.Get(p+"/callback", l.callback)
	r.Post(p+"/logout", l.logout)
}

// LoginURL implements server.Login: the start page, with what the
// authorization server asks sealed into it, so that the browser can only
// be sent back where the authorization server said.
func (l *Login) LoginURL(_ *http.Request, req server.LoginRequest) string {
	lr := loginRequest{ReturnTo: req.ReturnTo, ACRValues: req.ACRValues, Force: req.Force,
		Expires: l.now().Add(l.cfg.LoginTTL).Unix()}
	if req.MaxAge != nil {
		s := int64(*req.MaxAge / time.Second)
		lr.MaxAge = &s
	}
	sealed, _ := l.seal.sealString(sealRequest, "", &lr)
	return l.base.String() + "?r=" + sealed
}

// start sends the browser to the provider, with PKCE, state and nonce
// in a cookie of this browser.
func (l *Login) start(w http.ResponseWriter, r *http.Request) {
	var lr loginRequest
	if err := l.seal.openString(sealRequest, "", r.URL.Query().Get("r"), &lr); err != nil || l.now().Unix() > lr.Expires {
		l.page(w, http.StatusBadRequest, "This sign-in link is not valid", "Start again from the application.")
		return
	}
	pl := pendingLogin{loginRequest: lr, State: randomToken(32), Nonce: randomToken(32), Verifier: oauth2.GenerateVerifier(),
		Started: l.now().Unix()}
	pl.Expires = l.now().Add(l.cfg.LoginTTL).Unix()
	if err := l.cfg.Store.PutCredential(r.Context(), &server.Credential{Hash: hash("upstream-state:" + pl.State),
		Kind: kindState, Expires: l.now().Add(l.cfg.LoginTTL)}); err != nil {
		l.log.Error("upstream: storing a login state", "err", err)
		l.page(w, http.StatusServiceUnavailable, "The sign-in cannot start now", "Try again in a moment.")
		return
	}
	cookie, err := l.seal.sealString(sealState, "", &pl)
	if err != nil {
		l.page(w, http.StatusInternalServerError, "The sign-in cannot start", "Try again.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: cookie, Path: l.cookiePath(), MaxAge: int(l.cfg.LoginTTL / time.Second),
		HttpOnly: true, Secure: l.secure, SameSite: http.SameSiteLaxMode})
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(pl.Verifier)}
	if l.provider.kind != kindGitHub {
		opts = append(opts, oauth2.SetAuthURLParam("nonce", pl.Nonce))
		if len(lr.ACRValues) > 0 {
			opts = append(opts, oauth2.SetAuthURLParam("acr_values", strings.Join(lr.ACRValues, " ")))
		}
		if lr.MaxAge != nil {
			opts = append(opts, oauth2.SetAuthURLParam("max_age", strconv.FormatInt(*lr.MaxAge, 10)))
		}
		if lr.Force {
			opts = append(opts, oauth2.SetAuthURLParam("prompt", "login"))
		}
	} else if lr.Force {
		opts = append(opts, oauth2.SetAuthURLParam("prompt", "select_account"))
	}
	for k, v := range l.provider.AuthParams {
		opts = append(opts, oauth2.SetAuthURLParam(k, v))
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, l.oauth.AuthCodeURL(pl.State, opts...), http.StatusSeeOther)
}

func (l *Login) cookiePath() string {
	if l.base.Path == "" {
		return "/"
	}
	return l.base.Path
}

// callback is where the provider sends the browser back: the state is
// checked and consumed, the code exchanged with the PKCE verifier, the
// ID token verified, the rules run; only then is a session made.
func (l *Login) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ctx := r.Context()
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: "", Path: l.cookiePath(), MaxAge: -1,
		HttpOnly: true, Secure: l.secure, SameSite: http.SameSiteLaxMode})
	var pl pendingLogin
	c, err := r.Cookie(stateCookie)
	if err != nil || l.seal.openString(sealState, "", c.Value, &pl) != nil || l.now().Unix() > pl.Expires {
		l.page(w, http.StatusBadRequest, "This sign-in has expired", "Start again from the application.")
		return
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(pl.State)) != 1 {
		l.page(w, http.StatusBadRequest, "This sign-in does not match", "The answer from "+l.provider.Name+
			" is for another sign-in. Start again from the application.")
		return
	}
	st, err := l.cfg.Store.Consume(ctx, hash("upstream-state:"+pl.State))
	if err != nil || st.Used || st.Kind != kindState {
		l.page(w, http.StatusBadRequest, "This sign-in was already completed", "Start again from the application.")
		return
	}
	_ = l.cfg.Store.Delete(ctx, st.Hash)
	if iss := q.Get("iss"); iss != "" || l.issParam {
		// RFC 9207: the answer must come from the provider the request
		// went to.
		if !l.issuerMatches(iss) {
			l.page(w, http.StatusBadRequest, "This sign-in answer is not from "+l.provider.Name,
				"Its issuer does not match. Start again from the application.")
			return
		}
	}
	if e := q.Get("error"); e != "" {
		status, title := http.StatusBadRequest, "The sign-in at "+l.provider.Name+" did not succeed"
		if e == "access_denied" {
			status, title = http.StatusForbidden, "The sign-in at "+l.provider.Name+" was refused"
		}
		msg := e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		l.page(w, status, title, msg)
		return
	}
	code := q.Get("code")
	if code == "" {
		l.page(w, http.StatusBadRequest, "This sign-in answer has no code", "Start again from the application.")
		return
	}
	hctx := context.WithValue(ctx, oauth2.HTTPClient, l.http)
	tok, err := l.oauth.Exchange(hctx, code, oauth2.VerifierOption(pl.Verifier))
	if err != nil {
		l.log.Warn("upstream: exchanging the code", "provider", l.provider.Name, "err", oauthErrorCode(err))
		l.page(w, http.StatusBadGateway, "The sign-in at "+l.provider.Name+" could not be completed", "Start again from the application.")
		return
	}
	l.stamp(tok)
	person, err := l.identify(hctx, tok, &pl)
	if err != nil {
		l.log.Warn("upstream: the sign-in answer was refused", "provider", l.provider.Name, "err", err)
		l.page(w, http.StatusForbidden, "The sign-in at "+l.provider.Name+" cannot be accepted", "Start again from the application.")
		return
	}
	if err := allowed(ctx, l.cfg.Allow, person); err != nil {
		l.page(w, http.StatusForbidden, "This account may not sign in here", err.Error())
		return
	}
	sid := randomToken(32)
	if err := l.cfg.Store.PutCredential(ctx, &server.Credential{Hash: hash("upstream-session:" + sid), Kind: kindSession,
		Expires: l.now().Add(l.cfg.SessionTTL)}); err != nil {
		l.log.Error("upstream: storing the sign-in", "err", err)
		l.page(w, http.StatusServiceUnavailable, "The sign-in cannot be stored now", "Try again in a moment.")
		return
	}
	if err := l.putRecord(ctx, sessionKey(sid), &record{Token: tok, Person: person}, l.now().Add(l.cfg.SessionTTL)); err != nil {
		l.log.Error("upstream: storing the sign-in", "err", err)
		l.page(w, http.StatusServiceUnavailable, "The sign-in cannot be stored now", "Try again in a moment.")
		return
	}
	l.cache.forget(person.Subject)
	s := session{ID: sid, Subject: person.Subject, ACR: person.ACR, AMR: person.AMR, AuthTime: person.AuthTime.Unix(),
		Expires: l.now().Add(l.cfg.SessionTTL).Unix()}
	cookie, _ := l.seal.sealString(sealSession, "", &s)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: cookie, Path: "/", MaxAge: int(l.cfg.SessionTTL / time.Second),
		HttpOnly: true, Secure: l.secure, SameSite: http.SameSiteLaxMode})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, pl.ReturnTo, http.StatusSeeOther)
}

// issuerMatches checks an authorization response's iss (RFC 9207).
func (l *Login) issuerMatches(iss string) bool {
	if iss == "" {
		return false
	}
	if l.provider.kind == kindEntra {
		tid := strings.TrimSuffix(strings.TrimPrefix(iss, l.provider.authority), "/v2.0")
		return !strings.Contains(tid, "/") && l.entraIssuer(iss, tid)
	}
	return iss == l.provider.Issuer
}

// oauthErrorCode is what may be logged of an error from the token
// endpoint: its OAuth error code, never a body that might hold a token.
func oauthErrorCode(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return re.ErrorCode
		}
		return "status " + strconv.Itoa(re.Response.StatusCode)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + " " + ue.URL + ": " + ue.Err.Error()
	}
	return err.Error()
}

// currentSession returns the valid session of r: its cookie opens, has
// not expired, and its sign-in is still stored (not signed out).
func (l *Login) currentSession(r *http.Request) (*session, *server.UpstreamToken) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, nil
	}
	var s session
	if l.seal.openString(sealSession, "", c.Value, &s) != nil || l.now().Unix() >= s.Expires {
		return nil, nil
	}
	stored, err := l.tokens.UpstreamToken(r.Context(), sessionKey(s.ID))
	if err != nil || stored.Subject != s.Subject {
		return nil, nil
	}
	return &s, stored
}

// Current implements server.Login: the session cookie's sign-in, while
// it is stored: not signed out, and its tokens not yet gone to an
// authorization (see Granted).
func (l *Login) Current(r *http.Request) (*server.Authentication, error) {
	s, _ := l.currentSession(r)
	if s == nil {
		return nil, nil
	}
	return &server.Authentication{Subject: s.Subject, ACR: s.ACR, AMR: s.AMR, AuthTime: time.Unix(s.AuthTime, 0)}, nil
}

// Granted implements server.GrantRecorder: the sign-in's upstream tokens
// move to the new authorization (family), for its tool calls; the
// sign-in is then spent, and the next authorization signs in at the
// provider again (usually without a question there).
func (l *Login) Granted(r *http.Request, subject, family string) error {
	s, stored := l.currentSession(r)
	if s == nil || s.Subject != subject {
		return errors.New("upstream: the authorization's sign-in is not this browser's")
	}
	var rec record
	if err := l.seal.open(sealToken, stored.Key, stored.Sealed, &rec); err != nil {
		return err
	}
	if rec.Token == nil || rec.Person == nil {
		return errors.New("upstream: the sign-in's record is incomplete")
	}
	ctx := r.Context()
	// The sign-in is spent, once (two tabs approving at the same time
	// get it once): the next authorization signs in at the provider
	// again, so that no two share a refresh token (a provider rotating
	// them would see reuse).
	once, err := l.cfg.Store.Consume(ctx, hash("upstream-session:"+s.ID))
	if err != nil || once.Used || once.Kind != kindSession {
		return errors.New("upstream: the sign-in's tokens already went to another authorization")
	}
	_ = l.cfg.Store.Delete(ctx, once.Hash)
	if err := l.tokens.DeleteUpstreamToken(ctx, stored.Key); err != nil {
		return err
	}
	return l.putRecord(ctx, family, &rec, l.now().Add(l.cfg.TokenTTL))
}

// logout forgets the sign-in: its cookie no longer works, even replayed,
// and its upstream token is revoked at the provider (when it says where).
func (l *Login) logout(w http.ResponseWriter, r *http.Request) {
	if s, stored := l.currentSession(r); s != nil {
		var rec record
		opened := l.revoke.url != "" && l.seal.open(sealToken, stored.Key, stored.Sealed, &rec) == nil
		if err := l.tokens.DeleteUpstreamToken(r.Context(), sessionKey(s.ID)); err != nil {
			l.log.Error("upstream: signing out", "err", err)
			l.page(w, http.StatusServiceUnavailable, "You cannot be signed out now", "Try again in a moment.")
			return
		}
		l.cache.forget(s.Subject)
		if opened {
			l.revokeUpstream(rec.Token)
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: l.secure,
		SameSite: http.SameSiteLaxMode})
	l.page(w, http.StatusOK, "You are signed out", "You can close this page.")
}

// putRecord seals rec under key and stores it.
func (l *Login) putRecord(ctx context.Context, key string, rec *record, expires time.Time) error {
	sealed, err := l.seal.seal(sealToken, key, rec)
	if err != nil {
		return err
	}
	return l.tokens.PutUpstreamToken(ctx, &server.UpstreamToken{Key: key, Subject: rec.Person.Subject, Sealed: sealed,
		Updated: l.now(), Expires: expires}, l.cfg.TokensPerSubject)
}

// openRecord reads and opens the record under key.
func (l *Login) openRecord(ctx context.Context, key string) (*record, *server.UpstreamToken, error) {
	stored, err := l.tokens.UpstreamToken(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	var rec record
	if err := l.seal.open(sealToken, stored.Key, stored.Sealed, &rec); err != nil || rec.Person == nil || rec.Token == nil {
		return nil, nil, ErrNoToken
	}
	return &rec, stored, nil
}
