package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// The demo user's credentials (see the package documentation).
const (
	DemoUser     = "alice"
	DemoPassword = "wonderland"
	DemoCode     = "123456"
)

// Session bounds.
const (
	sessionTTL  = 12 * time.Hour
	maxSessions = 10_000
	cookieName  = "demo_session"
)

// user is an account of the application.
type user struct {
	passwordHash [32]byte // SHA-256: a demo; use a password hash (argon2id, bcrypt) in earnest
	name, email  string
	active       bool
}

// session is a sign-in, behind the session cookie.
type session struct {
	auth    server.Authentication
	expires time.Time
}

// Accounts is the application's users and sessions; it implements
// server.Login.
type Accounts struct {
	// AS is set once the authorization server exists, to check return
	// URLs.
	AS *server.Server

	mu       sync.Mutex
	users    map[string]*user
	sessions map[string]*session
	now      func() time.Time
}

// NewAccounts returns the accounts with the demo user.
func NewAccounts() *Accounts {
	return &Accounts{
		users: map[string]*user{DemoUser: {passwordHash: sha256.Sum256([]byte(DemoPassword)),
			name: "Alice Liddell", email: "alice@example.com", active: true}},
		sessions: map[string]*session{},
		now:      time.Now,
	}
}

// Current implements server.Login: the session cookie's sign-in.
func (a *Accounts) Current(r *http.Request) (*server.Authentication, error) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return nil, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[c.Value]
	if !ok || !a.now().Before(s.expires) {
		return nil, nil
	}
	cp := s.auth
	return &cp, nil
}

// LoginURL implements server.Login: the login page, told what to ask.
func (a *Accounts) LoginURL(_ *http.Request, req server.LoginRequest) string {
	q := url.Values{"return": {req.ReturnTo}}
	if slices.Contains(req.ACRValues, MFA) {
		q.Set("mfa", "1")
	}
	if req.Force || req.MaxAge != nil {
		q.Set("fresh", "1")
	}
	if req.ClientName != "" {
		q.Set("client", req.ClientName)
	}
	return "/login?" + q.Encode()
}

// Lookup implements server.Login: whether the account is still active,
// and its claims.
func (a *Accounts) Lookup(_ context.Context, subject string) (*server.Subject, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	u, ok := a.users[subject]
	if !ok {
		return nil, errors.New("no such account")
	}
	return &server.Subject{Active: u.active, Claims: map[string]any{
		"name": u.name, "email": u.email, "email_verified": true, "preferred_username": subject}}, nil
}

// SetActive enables or disables an account.
func (a *Accounts) SetActive(username string, active bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if u, ok := a.users[username]; ok {
		u.active = active
	}
}

// loginPage is the form's data.
type loginPage struct {
	Return, Client, Error, Username string
	MFA                             bool
}

var loginTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in</title>
<style>body{font-family:system-ui,sans-serif;background:#f6f6f4;margin:0}main{max-width:26rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 3px #0002}
label{display:block;margin:.8rem 0 .3rem;font-weight:600}input{font:inherit;padding:.5rem;width:100%;box-sizing:border-box}
button{font:inherit;margin-top:1.2rem;padding:.6rem 1.2rem;background:#1d4ed8;color:#fff;border:0;border-radius:.3rem}
button:focus,input:focus{outline:3px solid #f59e0b;outline-offset:2px}.hint{color:#555;font-size:.9rem}</style></head>
<body><main aria-labelledby="title">
<h1 id="title">Sign in{{if .Client}} to continue to {{.Client}}{{end}}</h1>
{{if .Error}}<p role="alert" id="login-error">{{.Error}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="return" value="{{.Return}}">
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" value="{{.Username}}" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="otp">One-time code{{if not .MFA}} (optional){{end}}</label>
<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" aria-describedby="otp-hint"{{if .MFA}} required{{end}}>
<p class="hint" id="otp-hint">{{if .MFA}}This action needs a multi-factor sign-in: enter the code from your authenticator.{{else}}Enter it for a multi-factor sign-in.{{end}} Demo account: alice / wonderland, code 123456.</p>
<button type="submit" id="sign-in">Sign in</button>
</form></main></body></html>`))

func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
}

// ServeLogin shows the login form (GET) and signs in (POST).
func (a *Accounts) ServeLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		q := r.URL.Query()
		pageHeaders(w)
		_ = loginTemplate.Execute(w, &loginPage{Return: q.Get("return"), Client: q.Get("client"), MFA: q.Get("mfa") == "1"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the form cannot be read", http.StatusBadRequest)
		return
	}
	// Login CSRF: a cross-site form post carries a foreign Origin.
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		if u, err := url.Parse(o); err != nil || u.Host != r.Host {
			http.Error(w, "cross-site sign-in refused", http.StatusForbidden)
			return
		}
	}
	f := r.PostForm
	ret := f.Get("return")
	if a.AS == nil || !a.AS.IsReturnURL(ret) {
		ret = "/"
	}
	username, password, otp := f.Get("username"), f.Get("password"), f.Get("otp")
	a.mu.Lock()
	u, ok := a.users[username]
	a.mu.Unlock()
	sum := sha256.Sum256([]byte(password))
	if !ok || subtle.ConstantTimeCompare(sum[:], u.passwordHash[:]) != 1 || !u.active {
		w.WriteHeader(http.StatusUnauthorized)
		pageHeaders(w)
		_ = loginTemplate.Execute(w, &loginPage{Return: f.Get("return"), Username: username, Error: "Wrong username or password."})
		return
	}
	auth := server.Authentication{Subject: username, ACR: Password, AMR: []string{"pwd"}, AuthTime: a.now()}
	if otp != "" {
		if subtle.ConstantTimeCompare([]byte(otp), []byte(DemoCode)) != 1 {
			w.WriteHeader(http.StatusUnauthorized)
			pageHeaders(w)
			_ = loginTemplate.Execute(w, &loginPage{Return: f.Get("return"), Username: username, MFA: true,
				Error: "Wrong one-time code."})
			return
		}
		auth.ACR, auth.AMR = MFA, []string{"pwd", "otp"}
	}
	id := newSessionID()
	a.mu.Lock()
	if len(a.sessions) >= maxSessions {
		now := a.now()
		for k, s := range a.sessions {
			if !now.Before(s.expires) || len(a.sessions) >= maxSessions {
				delete(a.sessions, k)
			}
		}
	}
	a.sessions[id] = &session{auth: auth, expires: a.now().Add(sessionTTL)}
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode, MaxAge: int(sessionTTL / time.Second)})
	http.Redirect(w, r, ret, http.StatusSeeOther)
}

func newSessionID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
