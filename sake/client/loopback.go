package client

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
)

// Loopback is a redirect listener on 127.0.0.1 for command-line programs:
// the authorization server sends the browser back to it, and it hands the
// redirect to the OAuth flow. Set OAuthConfig.Browser to its Browser
// method and OAuthConfig.RedirectURL to its RedirectURL.
type Loopback struct {
	// Open opens a URL in the user's browser (for example by running
	// xdg-open or open). Without it the URL is printed by Prompt.
	Open func(url string) error
	// Prompt shows the URL when Open is nil or fails.
	Prompt func(url string)

	ln       net.Listener
	srv      *http.Server
	redirect string
	mu       sync.Mutex
	waiting  chan *url.URL
}

// NewLoopback listens on 127.0.0.1 (port 0: any free port) at path
// /callback.
func NewLoopback(port int) (*Loopback, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("client: the loopback redirect listener: %w", err)
	}
	l := &Loopback{ln: ln, redirect: "http://" + ln.Addr().String() + "/callback"}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", l.callback)
	l.srv = &http.Server{Handler: mux}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
}

// RedirectURL is the redirect URI to register.
func (l *Loopback) RedirectURL() string { return l.redirect }

// Close stops listening.
func (l *Loopback) Close() error { return l.srv.Close() }

func (l *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	ch := l.waiting
	l.waiting = nil
	l.mu.Unlock()
	if ch == nil {
		http.Error(w, "No sign-in is in progress.", http.StatusBadRequest)
		return
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	ch <- &u
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	msg := "You are signed in. You can close this window."
	if e := r.URL.Query().Get("error"); e != "" {
		msg = "The sign-in failed: " + e
	}
	fmt.Fprintf(w, "<!doctype html><title>Sign-in</title><p>%s</p>", html.EscapeString(msg))
}

// Browser opens authURL and waits for the redirect to the listener.
func (l *Loopback) Browser(ctx context.Context, authURL string) (*url.URL, error) {
	ch := make(chan *url.URL, 1)
	l.mu.Lock()
	if l.waiting != nil {
		l.mu.Unlock()
		return nil, errors.New("client: another sign-in is in progress")
	}
	l.waiting = ch
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		if l.waiting == ch {
			l.waiting = nil
		}
		l.mu.Unlock()
	}()
	opened := false
	if l.Open != nil {
		opened = l.Open(authURL) == nil
	}
	if !opened && l.Prompt != nil {
		l.Prompt(authURL)
	}
	select {
	case u := <-ch:
		return u, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// FollowRedirects returns a Browser for servers that sign the user in
// without a page (tests, machine-to-machine set-ups): it requests the
// authorization URL with hc, follows the server's redirects, and returns
// the first one to redirectURL without requesting it.
func FollowRedirects(hc *http.Client, redirectURL string) func(ctx context.Context, authURL string) (*url.URL, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		var got *url.URL
		c := *hc
		c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) > 10 {
				return errors.New("client: too many redirects")
			}
			if sameEndpoint(req.URL, redirectURL) {
				got = req.URL
				return http.ErrUseLastResponse
			}
			return nil
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		if got == nil {
			return nil, fmt.Errorf("client: the authorization server answered %d without redirecting to %s", resp.StatusCode, redirectURL)
		}
		return got, nil
	}
}

func sameEndpoint(u *url.URL, redirect string) bool {
	r, err := url.Parse(redirect)
	return err == nil && u.Scheme == r.Scheme && u.Host == r.Host && u.Path == r.Path
}
