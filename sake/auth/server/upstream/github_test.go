package upstream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// fakeGitHub is GitHub's OAuth endpoints and user API, for octocat
// (id 583231), a member of the "sake" organisation, whose primary
// address is unverified. Requests deleting a token (its JSON body and
// the Basic credentials) go to deleted, when given.
func fakeGitHub(t *testing.T, deleted ...chan<- string) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /api/applications/{client}/token", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id, secret, _ := r.BasicAuth()
		for _, d := range deleted {
			d <- r.PathValue("client") + " " + id + ":" + secret + " " + strings.TrimSpace(string(body))
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /login/oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge") == "" || q.Get("nonce") != "" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=gh-code&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /login/oauth/access_token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.PostForm.Get("code") != "gh-code" || r.PostForm.Get("client_secret") != "gh-secret" || r.PostForm.Get("code_verifier") == "" {
			writeJSON(w, map[string]any{"error": "bad_verification_code"})
			return
		}
		writeJSON(w, map[string]any{"access_token": "gho_123", "token_type": "bearer", "scope": "read:user,user:email,read:org"})
	})
	api := func(path string, v any) {
		mux.HandleFunc("GET /api"+path, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer gho_123" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			writeJSON(w, v)
		})
	}
	api("/user", map[string]any{"id": 583231, "login": "octocat", "name": "The Octocat"})
	api("/user/emails", []map[string]any{{"email": "octo@unverified.example", "primary": true, "verified": false},
		{"email": "octocat@github.example", "primary": false, "verified": true}})
	api("/user/orgs", []map[string]any{{"login": "sake"}})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func gitHubHarness(t *testing.T, allow ...Rule) (*harness, *httptest.Server) {
	gh := fakeGitHub(t)
	h := newHarness(t, func(c *Config) {
		c.Provider = GitHubAt(gh.URL, gh.URL+"/api")
		c.ClientID, c.ClientSecret, c.Scopes, c.Allow = "gh-app", "gh-secret", []string{"read:org"}, allow
	})
	return h, gh
}

// toGitHub follows an authorization to the (fake) GitHub and back.
func (h *harness) throughGitHub(gh string) (*http.Response, string) {
	_, q := authorizeParams()
	resp, body := h.get(h.issuer + "/oauth/authorize?" + q.Encode())
	resp, body = h.get(h.location(resp, body))
	at := h.location(resp, body)
	if !strings.HasPrefix(at, gh+"/login/oauth/authorize?") {
		h.t.Fatalf("the login went to %s", at)
	}
	resp, body = h.get(at)
	return h.get(h.location(resp, body))
}

func TestGitHub(t *testing.T) {
	h, gh := gitHubHarness(t, AllowOrganizations("Sake"), AllowDomains("github.example"))
	resp, body := h.throughGitHub(gh.URL)
	if !h.as.IsReturnURL(h.location(resp, body)) {
		t.Fatal("not back at the consent")
	}
	sub := gh.URL + "#583231"
	s, err := h.login.Lookup(context.Background(), sub)
	if err != nil || !s.Active || s.Claims["email"] != "octocat@github.example" || s.Claims["preferred_username"] != "octocat" {
		t.Fatalf("Lookup(%s) = %+v, %v: want the verified address", sub, s, err)
	}
}

func TestGitHubRefusals(t *testing.T) {
	for name, rule := range map[string]Rule{
		"not a member":                   AllowOrganizations("other-org"),
		"an unverified address's domain": AllowDomains("unverified.example"),
	} {
		t.Run(name, func(t *testing.T) {
			h, gh := gitHubHarness(t, rule)
			resp, body := h.throughGitHub(gh.URL)
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Location") != "" {
				t.Fatalf("callback: %d %s", resp.StatusCode, body)
			}
			if h.signedIn() {
				t.Fatal("signed in")
			}
			if _, err := h.store.LatestUpstreamToken(context.Background(), gh.URL+"#583231"); err != server.ErrNotFound {
				t.Fatalf("an upstream token was stored: %v", err)
			}
		})
	}
}
