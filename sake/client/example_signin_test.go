package client_test

import (
	"net/http"
	"sync"

	"github.com/sakemcp/sake-go/sake/client"
)

// A server signing its users in to another MCP server: BeginSignIn gives
// the page to send the user to (the state and PKCE verifier stay in the
// program), CompleteSignIn takes the browser's return and keeps the
// token in that user's store.
func ExampleOAuthAuthorizer_BeginSignIn() {
	base := client.OAuth(client.OAuthConfig{RedirectURL: "https://app.example.com/callback"})
	var mu sync.Mutex
	pending := map[string]*client.PendingSignIn{} // by state; bound and expire them
	stores := map[string]client.TokenStore{}      // each user's

	http.HandleFunc("/connect", func(w http.ResponseWriter, r *http.Request) {
		p, err := base.BeginSignIn(r.Context(), "https://tracker.example.com/mcp")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		mu.Lock()
		pending[p.State] = p
		mu.Unlock()
		http.Redirect(w, r, p.URL, http.StatusSeeOther)
	})
	http.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		p := pending[r.URL.Query().Get("state")]
		delete(pending, r.URL.Query().Get("state"))
		user := "the user who began p" // keep it with p
		if stores[user] == nil {
			stores[user] = client.MemoryTokenStore()
		}
		store := stores[user]
		mu.Unlock()
		if p == nil {
			http.Error(w, "unknown or used sign-in", http.StatusBadRequest)
			return
		}
		if _, err := base.WithStore(store).CompleteSignIn(r.Context(), p, r.URL); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte("Signed in."))
	})
}
