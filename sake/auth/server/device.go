package server

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// deviceInterval is the polling interval, in seconds (RFC 8628 §3.2).
const deviceInterval = 5

// Guessing user codes (RFC 8628 §5.1): a person gets maxCodeGuesses
// wrong codes per guessWindow; at most maxGuessers people are tracked.
const (
	maxCodeGuesses = 5
	guessWindow    = 15 * time.Minute
	maxGuessers    = 10_000
)

type guesses struct {
	n     int
	since time.Time
}

// tooManyGuesses reports whether subject has used up its wrong codes,
// and records one more wrong code when wrong is set.
func (s *Server) tooManyGuesses(subject string, wrong bool) bool {
	s.guessMu.Lock()
	defer s.guessMu.Unlock()
	now := s.now()
	g := s.guesses[subject]
	if g == nil || now.Sub(g.since) >= guessWindow {
		if !wrong {
			return false
		}
		if len(s.guesses) >= maxGuessers {
			for k, v := range s.guesses {
				if now.Sub(v.since) >= guessWindow || len(s.guesses) >= maxGuessers {
					delete(s.guesses, k)
				}
			}
		}
		g = &guesses{since: now}
		s.guesses[subject] = g
	}
	if wrong {
		g.n++
	}
	return g.n > maxCodeGuesses || (!wrong && g.n >= maxCodeGuesses)
}

// userCodeAlphabet avoids vowels and look-alikes (RFC 8628 §6.1).
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

func newUserCode() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	out := make([]byte, 0, 9)
	for i, c := range b {
		if i == 4 {
			out = append(out, '-')
		}
		out = append(out, userCodeAlphabet[int(c)%len(userCodeAlphabet)])
	}
	return string(out)
}

// normalUserCode uppercases and drops separators, so people can type it
// loosely.
func normalUserCode(s string) string {
	var b strings.Builder
	for _, c := range strings.ToUpper(s) {
		if strings.ContainsRune(userCodeAlphabet, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// deviceAuthorization starts the device authorization grant (RFC 8628
// §3.1).
func (s *Server) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	if e := readForm(w, r); e != nil {
		writeError(w, r, e)
		return
	}
	client, e := s.authenticateClient(r)
	if e != nil {
		writeError(w, r, e)
		return
	}
	if !client.allows(grantDevice) {
		writeError(w, r, oerr(ErrUnauthorizedClient, "this client may not use the device authorization grant"))
		return
	}
	f := r.PostForm
	scopes, e := s.scopesFor(f.Get("scope"), f.Has("scope"), client)
	if e != nil {
		writeError(w, r, e)
		return
	}
	res, e := s.resourcesFor(f["resource"])
	if e != nil {
		writeError(w, r, e)
		return
	}
	now := s.now()
	deviceCode, userCode := randomToken(32), newUserCode()
	g := Grant{ClientID: client.ID, Scopes: scopes, Resource: res, Created: now, Interval: deviceInterval, MaxAge: -1}
	// Kept an hour past expiry so that late polls hear expired_token.
	dev := &Credential{Hash: hashHandle(deviceCode), Kind: KindDevice, Family: randomToken(16),
		Expires: now.Add(s.cfg.DeviceCodeTTL + time.Hour), Grant: g}
	uc := &Credential{Hash: hashHandle(normalUserCode(userCode)), Kind: KindUserCode,
		Expires: now.Add(s.cfg.DeviceCodeTTL), Grant: Grant{ClientID: client.ID, DeviceHash: dev.Hash}}
	if err := s.store.PutCredential(r.Context(), dev); err != nil {
		writeError(w, r, s.storeError(err))
		return
	}
	if err := s.store.PutCredential(r.Context(), uc); err != nil {
		writeError(w, r, s.storeError(err))
		return
	}
	verify := s.endpoint(pathDevice)
	writeJSON(w, http.StatusOK, map[string]any{
		"device_code":               deviceCode,
		"user_code":                 userCode,
		"verification_uri":          verify,
		"verification_uri_complete": verify + "?user_code=" + url.QueryEscape(userCode),
		"expires_in":                int64(s.cfg.DeviceCodeTTL / time.Second),
		"interval":                  deviceInterval,
	})
}

// deviceGrant is the token request of the device flow (RFC 8628 §3.4).
func (s *Server) deviceGrant(w http.ResponseWriter, r *http.Request, client *Client, jkt string) *oauthError {
	ctx := r.Context()
	hash := hashHandle(r.PostForm.Get("device_code"))
	cred, err := s.store.Credential(ctx, hash)
	if errors.Is(err, ErrNotFound) || err == nil && cred.Kind != KindDevice {
		return oerr(ErrInvalidGrant, "the device_code is unknown")
	}
	if err != nil {
		return s.storeError(err)
	}
	g := &cred.Grant
	now := s.now()
	switch {
	case g.ClientID != client.ID:
		return oerr(ErrInvalidGrant, "the device_code was issued to another client")
	case cred.Used || cred.Revoked:
		return oerr(ErrInvalidGrant, "the device_code was already used")
	case !now.Before(g.Created.Add(s.cfg.DeviceCodeTTL)):
		return oerr(ErrExpiredToken, "the device_code expired: start again")
	case g.Denied:
		_ = s.store.Delete(ctx, hash)
		return oerr(ErrAccessDenied, "the person denied the request")
	case !g.Approved:
		if !g.LastPoll.IsZero() && now.Sub(g.LastPoll) < time.Duration(g.Interval)*time.Second {
			g.Interval += 5
			g.LastPoll = now
			_ = s.store.PutCredential(ctx, cred)
			return oerr(ErrSlowDown, "poll less often")
		}
		g.LastPoll = now
		_ = s.store.PutCredential(ctx, cred)
		return oerr(ErrAuthorizationPending, "the person has not answered yet")
	}
	// Asked before the code is spent: a login that fails (or panics)
	// leaves it for the next poll.
	if e := s.active(ctx, g.Subject, cred.Family); e != nil {
		return e
	}
	before, err := s.store.Consume(ctx, hash)
	if err != nil || before.Used {
		return oerr(ErrInvalidGrant, "the device_code was already used")
	}
	issued := *g
	issued.JKT = jkt
	return s.respond(w, r, client, &issued, cred.Family, client.allows("refresh_token"))
}

// DevicePage is what the device template is executed with.
type DevicePage struct {
	// Action is the form URL.
	Action string
	// UserCode is the code typed or carried in the link.
	UserCode string
	// Error says what went wrong with the code typed.
	Error string
	// Confirm is set once the code is known: ask to allow.
	Confirm bool
	// ClientName, Scopes and Subject are shown when confirming.
	ClientName string
	Scopes     []Scope
	Subject    string
	// CSRF is the confirm form's token.
	CSRF string
	// Done reports the outcome after the decision.
	Done string
}

var deviceTemplate = template.Must(template.New("device").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect a device</title>` + pageStyle + `</head>
<body><main aria-labelledby="title">
{{if .Done}}<h1 id="title">{{.Done}}</h1><p>You can close this page and return to your device.</p>
{{else if .Confirm}}<h1 id="title">Allow <strong>{{.ClientName}}</strong> on your device?</h1>
<p>You are signed in as <strong>{{.Subject}}</strong>. Check that your device shows the code <strong>{{.UserCode}}</strong>.</p>
<h2 id="scopes-title">It will be able to:</h2>
<ul aria-labelledby="scopes-title">{{range .Scopes}}<li>{{if .Description}}{{.Description}} {{end}}<code>{{.Name}}</code></li>{{end}}</ul>
<form method="post" action="{{.Action}}">
<input type="hidden" name="user_code" value="{{.UserCode}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<div class="actions"><button type="submit" name="decision" value="allow" class="primary">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>
{{else}}<h1 id="title">Connect a device</h1>
<form method="get" action="{{.Action}}">
<label for="user_code">Enter the code shown on your device</label>
<input type="text" id="user_code" name="user_code" value="{{.UserCode}}" autocomplete="off" autocapitalize="characters" required{{if .Error}} aria-invalid="true" aria-describedby="code-error"{{end}}>
{{if .Error}}<p id="code-error" role="alert">{{.Error}}</p>{{end}}
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>{{end}}
</main></body></html>`))

func (s *Server) renderDevice(w http.ResponseWriter, p *DevicePage, status int) {
	p.Action = s.endpoint(pathDevice)
	pageHeaders(w)
	w.WriteHeader(status)
	if err := s.device.Execute(w, p); err != nil {
		s.log.Error("authserver: device template", "err", err)
	}
}

// devicePage is the verification URI: sign in, type the code, confirm.
func (s *Server) devicePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	code := r.URL.Query().Get("user_code")
	a, err := s.current(r)
	if err != nil {
		s.errorPage(w, r, oerr(ErrServerError, "the sign-in cannot be checked"))
		return
	}
	if a == nil || a.Subject == "" {
		back := s.endpoint(pathDevice)
		if code != "" {
			back += "?user_code=" + url.QueryEscape(code)
		}
		to, err := s.loginURL(r, LoginRequest{ReturnTo: back})
		if err != nil {
			s.errorPage(w, r, oerr(ErrServerError, "the sign-in page cannot be found"))
			return
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	}
	if code == "" {
		s.renderDevice(w, &DevicePage{}, http.StatusOK)
		return
	}
	if s.tooManyGuesses(a.Subject, false) {
		s.renderDevice(w, &DevicePage{Error: "Too many wrong codes. Wait a quarter of an hour, then try again."}, http.StatusTooManyRequests)
		return
	}
	uc, err := s.store.Credential(ctx, hashHandle(normalUserCode(code)))
	if err != nil || uc.Kind != KindUserCode || uc.Used {
		s.tooManyGuesses(a.Subject, true)
		s.renderDevice(w, &DevicePage{UserCode: code, Error: "This code is unknown or has expired. Check it and try again."}, http.StatusBadRequest)
		return
	}
	dev, err := s.store.Credential(ctx, uc.Grant.DeviceHash)
	if err != nil {
		s.renderDevice(w, &DevicePage{UserCode: code, Error: "This code has expired. Start again on your device."}, http.StatusBadRequest)
		return
	}
	p := &DevicePage{Confirm: true, UserCode: code, Subject: a.Subject, CSRF: mac(s.secret, "device", uc.Hash, a.Subject)}
	p.ClientName = dev.Grant.ClientID
	if c, e := s.client(ctx, dev.Grant.ClientID); e == nil {
		p.ClientName = c.displayName()
	}
	for _, sc := range dev.Grant.Scopes {
		p.Scopes = append(p.Scopes, Scope{Name: sc, Description: s.scopeDesc[sc]})
	}
	s.renderDevice(w, p, http.StatusOK)
}

// deviceDecision records the person's answer for a device code.
func (s *Server) deviceDecision(w http.ResponseWriter, r *http.Request) {
	if e := readForm(w, r); e != nil {
		s.errorPage(w, r, e)
		return
	}
	ctx := r.Context()
	a, err := s.current(r)
	if errors.Is(err, errHookPanicked) {
		s.errorPage(w, r, oerr(ErrServerError, "the sign-in cannot be checked"))
		return
	}
	if err != nil || a == nil || a.Subject == "" {
		s.errorPage(w, r, oerr(ErrAccessDenied, "you are not signed in"))
		return
	}
	ucHash := hashHandle(normalUserCode(r.PostForm.Get("user_code")))
	if subtle.ConstantTimeCompare([]byte(mac(s.secret, "device", ucHash, a.Subject)), []byte(r.PostForm.Get("csrf"))) != 1 {
		s.errorPage(w, r, oerr(ErrAccessDenied, "the form's security token is invalid: enter the code again"))
		return
	}
	uc, err := s.store.Consume(ctx, ucHash)
	if err != nil || uc.Used || uc.Kind != KindUserCode {
		s.renderDevice(w, &DevicePage{Error: "This code is unknown, expired or already used."}, http.StatusBadRequest)
		return
	}
	_ = s.store.Delete(ctx, ucHash)
	dev, err := s.store.Credential(ctx, uc.Grant.DeviceHash)
	if err != nil || dev.Used {
		s.renderDevice(w, &DevicePage{Error: "This code has expired. Start again on your device."}, http.StatusBadRequest)
		return
	}
	g := &dev.Grant
	subj, err := s.lookup(ctx, a.Subject)
	if errors.Is(err, errHookPanicked) {
		s.errorPage(w, r, oerr(ErrServerError, "the account cannot be checked now"))
		return
	}
	if err != nil || subj == nil || !subj.Active {
		g.Denied = true
	} else if r.PostForm.Get("decision") == "allow" {
		g.Approved = true
		g.Subject, g.ACR, g.AMR, g.AuthTime = a.Subject, a.ACR, a.AMR, a.AuthTime
		if err := s.recordGrant(r, a.Subject, dev.Family); errors.Is(err, errHookPanicked) {
			s.errorPage(w, r, oerr(ErrServerError, "the authorization cannot be recorded now"))
			return
		} else if err != nil {
			s.log.Error("authserver: Login.Granted", "err", err)
			g.Approved, g.Denied = false, true
		}
	} else {
		g.Denied = true
	}
	if err := s.store.PutCredential(ctx, dev); err != nil {
		s.errorPage(w, r, s.storeError(err))
		return
	}
	done := "Your device is connected"
	if g.Denied {
		done = "The device was not connected"
	}
	s.renderDevice(w, &DevicePage{Done: done}, http.StatusOK)
}
