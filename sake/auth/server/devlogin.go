package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// DefaultDevLoginPath is where a DevLogin's page is served.
const DefaultDevLoginPath = "/dev-login"

// devCookie is the DevLogin's session cookie.
const devCookie = "sake_dev_login"

// DevLogin is a Login of one person, for local development: its page has
// one button, "Continue as SUBJECT", and no password. It answers only
// requests from a loopback address to a loopback host
// (http://127.0.0.1:PORT, http://localhost:PORT); anything else gets 403
// and nobody is signed in. Never use it in production.
type DevLogin struct {
	subject string
	claims  map[string]any
	path    string
	key     []byte
	now     func() time.Time
}

// NewDevLogin returns a DevLogin of subject, whose claims (name,
// email...) go into ID tokens and userinfo. Mount its page with Mount.
func NewDevLogin(subject string, claims map[string]any) *DevLogin {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	if subject == "" {
		subject = "dev"
	}
	return &DevLogin{subject: subject, claims: claims, path: DefaultDevLoginPath, key: key, now: time.Now}
}

// Mount adds the sign-in page at DefaultDevLoginPath.
func (d *DevLogin) Mount(r chi.Router) {
	r.Get(d.path, d.serve)
	r.Post(d.path, d.serve)
}

// local reports whether r comes from this computer to a loopback host.
func local(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	h := r.Host
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	return ip != nil && ip.IsLoopback() && isLoopbackHost(h)
}

// Current implements Login: the person, once they pressed the button.
func (d *DevLogin) Current(r *http.Request) (*Authentication, error) {
	if !local(r) {
		return nil, nil
	}
	c, err := r.Cookie(devCookie)
	if err != nil {
		return nil, nil
	}
	at, sig, ok := strings.Cut(c.Value, ".")
	if !ok || subtle.ConstantTimeCompare([]byte(sig), []byte(mac(d.key, "session", d.subject, at))) != 1 {
		return nil, nil
	}
	sec, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return nil, nil
	}
	return &Authentication{Subject: d.subject, AMR: []string{"dev"}, AuthTime: time.Unix(sec, 0)}, nil
}

// LoginURL implements Login: the page, with ReturnTo sealed so that it
// cannot send the browser anywhere else.
func (d *DevLogin) LoginURL(_ *http.Request, req LoginRequest) string {
	return d.path + "?return_to=" + url.QueryEscape(req.ReturnTo) + "&sig=" + mac(d.key, "return", req.ReturnTo)
}

// Lookup implements Login: the one person is always active.
func (d *DevLogin) Lookup(_ context.Context, subject string) (*Subject, error) {
	return &Subject{Active: subject == d.subject, Claims: d.claims}, nil
}

var devTemplate = template.Must(template.New("dev").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Development sign-in</title>` + pageStyle + `</head>
<body><main aria-labelledby="title"><h1 id="title">Development sign-in</h1>
<p class="warn" role="note">This sign-in has no password. It works only on this computer.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="return_to" value="{{.ReturnTo}}"><input type="hidden" name="sig" value="{{.Sig}}">
<div class="actions"><button type="submit" class="primary">Continue as {{.Subject}}</button></div>
</form></main></body></html>`))

func (d *DevLogin) serve(w http.ResponseWriter, r *http.Request) {
	if !local(r) {
		http.Error(w, "the development sign-in answers only on this computer", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, DefaultMaxBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the request cannot be parsed", http.StatusBadRequest)
		return
	}
	ret, sig := r.Form.Get("return_to"), r.Form.Get("sig")
	if subtle.ConstantTimeCompare([]byte(sig), []byte(mac(d.key, "return", ret))) != 1 {
		http.Error(w, "this sign-in link is not one the authorization server made", http.StatusBadRequest)
		return
	}
	if r.Method != http.MethodPost {
		pageHeaders(w)
		_ = devTemplate.Execute(w, map[string]string{"Action": d.path, "ReturnTo": ret, "Sig": sig, "Subject": d.subject})
		return
	}
	at := strconv.FormatInt(d.now().Unix(), 10)
	http.SetCookie(w, &http.Cookie{Name: devCookie, Value: at + "." + mac(d.key, "session", d.subject, at),
		Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, ret, http.StatusSeeOther)
}
