package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
)

// signInUsage explains the sign-in in the usage of the commands that
// connect to a server.
const signInUsage = `A server over HTTP that answers 401 with a challenge naming its
authorization server (RFC 9728 resource metadata) is signed in to with
OAuth 2.1: the command registers itself (or uses -client-id), opens the
sign-in page in the browser where there is one and always prints its URL on
standard error, and waits for the browser to come back to a redirect
listener on 127.0.0.1. With -device (or over SSH without a display, when the
authorization server offers it) it shows a code to type on another
device's browser instead. -client-id with -client-secret signs in as a
machine client (client credentials), with no person. A person's token is
kept in the user's configuration directory (sake/tokens), readable by them
only, refreshed when it expires, and removed by 'sake logout URL'.
`

// signInFlags are the sign-in flags of the commands that connect.
type signInFlags struct {
	clientID, clientSecret, scope string
	device                        bool
}

func (s *signInFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.clientID, "client-id", "", "sign in as this pre-registered OAuth client (default: register dynamically)")
	fs.StringVar(&s.clientSecret, "client-secret", "", "with -client-id: sign in as that machine client (client credentials grant)")
	fs.StringVar(&s.scope, "scope", "", "space-separated OAuth scopes asked for beside those the server asks for")
	fs.BoolVar(&s.device, "device", false, "sign in with a code typed on another device (the device flow) instead of a browser on this machine")
}

// maxSignIn bounds the wait for a person to sign in.
const maxSignIn = 10 * time.Minute

// signIn is the authorizer of a connection to one URL: it runs the OAuth
// flow of sake/client when the server challenges with resource metadata,
// keeping a person's token in a file.
type signIn struct {
	oauth    *client.OAuthAuthorizer
	pause    func() func() // stops -timeout during a sign-in; returns the resume
	loopback *client.Loopback
	note     string // why the token is not kept, said after a sign-in
	e        *env
}

// newSignIn prepares the sign-in for url: its redirect listener on
// 127.0.0.1 (a free port) listens until ctx of the connection ends.
func newSignIn(e *env, f *signInFlags, url string, pause func() func()) (*signIn, error) {
	if f.clientSecret != "" && f.clientID == "" {
		return nil, usagef("-client-secret needs -client-id")
	}
	s := &signIn{pause: pause, e: e}
	cfg := client.OAuthConfig{ClientID: f.clientID, ClientSecret: f.clientSecret, ClientName: "sake",
		Scopes: strings.Fields(f.scope), OfflineAccess: true, HTTPClient: &http.Client{Timeout: 30 * time.Second}}
	switch {
	case f.clientSecret != "":
		// A machine's token is taken again at each run: no person waits
		// for it, and it is not left on disk.
		cfg.ClientCredentials = true
	default:
		if dir, err := tokenDir(e); err == nil {
			cfg.Store = &tokenFile{dir: dir, url: url}
		} else {
			s.note = fmt.Sprintf("the sign-in is not kept (%v): the next command signs in again", err)
		}
		if f.device || (e.getenv("SSH_CONNECTION") != "" && !hasDisplay(e)) {
			cfg.Device = s.showCode
		}
		if !f.device {
			lb, err := client.NewLoopback(0)
			if err != nil {
				return nil, err
			}
			lb.Prompt = s.prompt
			s.loopback = lb
			cfg.Browser, cfg.RedirectURL = lb.Browser, lb.RedirectURL()
		}
	}
	s.oauth = client.OAuth(cfg)
	return s, nil
}

// Close stops the redirect listener.
func (s *signIn) Close() {
	if s.loopback != nil {
		_ = s.loopback.Close()
	}
}

// Authorize implements client.Authorizer.
func (s *signIn) Authorize(ctx context.Context, req *http.Request) error {
	return s.oauth.Authorize(ctx, req)
}

// Challenged implements client.Authorizer: a challenge without resource
// metadata is the caller's to answer (with -header); one with it runs the
// sign-in, which -timeout does not count.
func (s *signIn) Challenged(ctx context.Context, req *http.Request, resp *http.Response, attempt int) (bool, error) {
	ch := client.ParseChallenge(resp.Header.Get("WWW-Authenticate"))
	if ch.ResourceMetadata == "" && ch.Error != "use_dpop_nonce" {
		return false, nil
	}
	resume := s.pause()
	defer resume()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), maxSignIn)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(context.Cause(ctx), errTimedOut) {
			cancel() // interrupted, not timed out
		}
	})
	defer stop()
	retry, err := s.oauth.Challenged(sctx, req, resp, attempt)
	if err != nil {
		return false, fmt.Errorf("signing in: %w", err)
	}
	if retry && s.note != "" {
		fmt.Fprintln(s.e.stderr, s.note)
		s.note = ""
	}
	return retry, nil
}

// prompt shows the sign-in page's URL, and opens it in the browser where
// there is one.
func (s *signIn) prompt(url string) {
	opened := s.e.openBrowser != nil && s.e.openBrowser(url) == nil
	how := "Open this page in a browser to sign in"
	if opened {
		how = "Sign in on the page opened in your browser (or open it yourself)"
	}
	fmt.Fprintf(s.e.stderr, "%s:\n\n\t%s\n\nWaiting for the sign-in (Ctrl-C to stop)...\n", how, safeText(url))
}

// showCode shows the device flow's page and code.
func (s *signIn) showCode(_ context.Context, c client.DeviceCode) error {
	fmt.Fprintf(s.e.stderr, "To sign in, open this page on any device:\n\n\t%s\n\nand type the code %s", safeText(c.VerificationURI), safeText(c.UserCode))
	if c.VerificationURIComplete != "" {
		fmt.Fprintf(s.e.stderr, " (or open %s)", safeText(c.VerificationURIComplete))
	}
	fmt.Fprintf(s.e.stderr, ".\nWaiting for the sign-in (Ctrl-C to stop)...\n")
	return nil
}

// hasDisplay reports whether a browser can be shown on this machine.
func hasDisplay(e *env) bool {
	switch e.goos {
	case "darwin", "windows":
		return true
	}
	return e.getenv("DISPLAY") != "" || e.getenv("WAYLAND_DISPLAY") != ""
}

// systemBrowser opens a URL with the system's opener (open, xdg-open,
// rundll32), best effort: an error when there is no browser to open.
func systemBrowser(e *env) func(url string) error {
	return func(url string) error {
		var name string
		var args []string
		switch {
		case e.goos == "darwin":
			name, args = "open", []string{url}
		case e.goos == "windows":
			name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
		case hasDisplay(e):
			name, args = "xdg-open", []string{url}
		default:
			return errors.New("no display to open a browser on")
		}
		path, err := e.lookPath(name)
		if err != nil {
			return err
		}
		cmd := exec.Command(path, args...)
		if err := cmd.Start(); err != nil {
			return err
		}
		go func() { _ = cmd.Wait() }()
		return nil
	}
}

// pausableTimeout is -timeout that a sign-in can stop: a person signing in
// is not the server being slow.
type pausableTimeout struct {
	mu    sync.Mutex
	d     time.Duration
	timer *time.Timer
}

// errTimedOut is the cause of a context ended by -timeout.
var errTimedOut = fmt.Errorf("timed out: %w", context.DeadlineExceeded)

func (p *pausableTimeout) pause() func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer == nil || !p.timer.Stop() {
		return func() {}
	}
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.timer.Reset(p.d)
	}
}
