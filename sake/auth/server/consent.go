package server

import (
	"crypto/subtle"
	"html/template"
	"net/http"
	"net/url"
	"strings"
)

// ConsentPage is what the consent template is executed with.
type ConsentPage struct {
	// ClientName and ClientID identify the application asking.
	ClientName, ClientID string
	// ClientURI is its home page, if known.
	ClientURI string
	// RedirectHost is where the browser goes afterwards: show it, the
	// person recognises it or not.
	RedirectHost string
	// LoopbackOnly is set when the redirect goes to this computer (a
	// native application): worth a warning.
	LoopbackOnly bool
	// FromDocument is set for a client described by a metadata document
	// (its name is its own claim).
	FromDocument bool
	// Scopes are asked for, with descriptions.
	Scopes []Scope
	// Resources are the MCP servers the access is for.
	Resources []string
	// Subject is who is signed in.
	Subject string
	// Action is the form's URL; Request and CSRF its hidden fields.
	Action, Request, CSRF string
}

var consentTemplate = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow {{.ClientName}}?</title>` + pageStyle + `</head>
<body><main aria-labelledby="title">
<h1 id="title">Allow <strong>{{.ClientName}}</strong> to use your account?</h1>
<p>You are signed in as <strong>{{.Subject}}</strong>.</p>
{{if .FromDocument}}<p>The application identifies itself as <code>{{.ClientID}}</code>.</p>{{end}}
<p>After you decide, you will be sent to <strong>{{.RedirectHost}}</strong>.</p>
{{if .LoopbackOnly}}<p class="warn" role="note">This application runs on your own computer. Only continue if you started it yourself just now.</p>{{end}}
<h2 id="scopes-title">It will be able to:</h2>
<ul aria-labelledby="scopes-title">{{range .Scopes}}<li>{{if .Description}}{{.Description}} {{end}}<code>{{.Name}}</code></li>{{end}}</ul>
{{if .Resources}}<p>For: {{range $i, $r := .Resources}}{{if $i}}, {{end}}<code>{{$r}}</code>{{end}}</p>{{end}}
<form method="post" action="{{.Action}}">
<input type="hidden" name="request" value="{{.Request}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<div class="actions">
<button type="submit" name="decision" value="allow" class="primary">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
</main></body></html>`))

func (s *Server) csrfFor(id, subject string) string {
	return mac(s.secret, "consent", id, subject)
}

func (s *Server) renderConsent(w http.ResponseWriter, r *http.Request, id string, g *Grant) {
	client, e := s.client(r.Context(), g.ClientID)
	if e != nil {
		s.errorPage(w, r, e)
		return
	}
	page := ConsentPage{ClientName: client.displayName(), ClientID: client.ID, ClientURI: client.URI,
		FromDocument: client.FromDocument, Resources: g.Resource, Subject: g.Subject,
		Action: s.endpoint(pathConsent), Request: id, CSRF: s.csrfFor(id, g.Subject)}
	if u, err := url.Parse(g.RedirectURI); err == nil {
		page.RedirectHost = u.Host
		if u.Host == "" {
			page.RedirectHost = u.Scheme + ":"
		}
		page.LoopbackOnly = isLoopbackHost(u.Hostname())
	}
	for _, sc := range g.Scopes {
		page.Scopes = append(page.Scopes, Scope{Name: sc, Description: s.scopeDesc[sc]})
	}
	pageHeaders(w)
	if err := s.consent.Execute(w, &page); err != nil {
		s.log.Error("authserver: consent template", "err", err)
	}
}

// consentPage continues a pending request (after sign-in).
func (s *Server) consentPage(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("request")
	cred, err := s.store.Credential(r.Context(), hashHandle(id))
	if id == "" || err != nil || cred.Kind != KindRequest || cred.Used {
		s.errorPage(w, r, oerr(ErrInvalidRequest, "this sign-in request is unknown or has expired"))
		return
	}
	s.proceed(w, r, id, cred)
}

// consentDecision takes the consent form: CSRF-checked, bound to the
// pending request and the person signed in.
func (s *Server) consentDecision(w http.ResponseWriter, r *http.Request) {
	if e := readForm(w, r); e != nil {
		s.errorPage(w, r, e)
		return
	}
	ctx := r.Context()
	id := r.PostForm.Get("request")
	a, err := s.current(r)
	if err != nil {
		s.errorPage(w, r, oerr(ErrServerError, "the sign-in cannot be checked"))
		return
	}
	if a == nil || id == "" {
		s.errorPage(w, r, oerr(ErrAccessDenied, "you are not signed in, or the form is incomplete"))
		return
	}
	want := s.csrfFor(id, a.Subject)
	if subtle.ConstantTimeCompare([]byte(want), []byte(r.PostForm.Get("csrf"))) != 1 {
		s.errorPage(w, r, oerr(ErrAccessDenied, "the form's security token is invalid: reload the application's sign-in"))
		return
	}
	cred, err := s.store.Consume(ctx, hashHandle(id))
	if err != nil || cred.Used || cred.Kind != KindRequest {
		s.errorPage(w, r, oerr(ErrInvalidRequest, "this sign-in request is unknown, expired or already answered"))
		return
	}
	_ = s.store.Delete(ctx, cred.Hash)
	g := &cred.Grant
	if loginNeeded(a, g, s.now()) || g.Subject != "" && g.Subject != a.Subject {
		s.redirectError(w, r, g, oerr(ErrAccessDenied, "the sign-in changed or no longer meets the request"))
		return
	}
	g.Subject, g.ACR, g.AMR, g.AuthTime = a.Subject, a.ACR, a.AMR, a.AuthTime
	switch r.PostForm.Get("decision") {
	case "allow":
		granted, _ := s.store.Consent(ctx, a.Subject, g.ClientID)
		for _, sc := range g.Scopes {
			if !strings.Contains(" "+strings.Join(granted, " ")+" ", " "+sc+" ") {
				granted = append(granted, sc)
			}
		}
		if err := s.store.PutConsent(ctx, a.Subject, g.ClientID, granted); err != nil {
			s.log.Warn("authserver: remembering consent", "err", err)
		}
		s.issueCode(w, r, g)
	default:
		s.redirectError(w, r, g, oerr(ErrAccessDenied, "the person denied the request"))
	}
}
