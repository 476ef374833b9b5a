package upstream

import (
	"html/template"
	"net/http"
)

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title><style>
body{font-family:system-ui,sans-serif;background:#f6f6f4;color:#1d1d1b;margin:0}
main{max-width:32rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin-top:0}</style></head>
<body><main aria-labelledby="title"><h1 id="title">{{.Title}}</h1><p>{{.Message}}</p></main></body></html>`))

// page answers a page of the login (errors, signed out).
func (l *Login) page(w http.ResponseWriter, status int, title, message string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	if len(message) > 300 {
		message = message[:300]
	}
	_ = pageTemplate.Execute(w, map[string]string{"Title": title, "Message": message})
}
