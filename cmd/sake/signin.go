package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
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
//
// While the client connects, a sign-in that needs a person is put off
// (errNeedSignIn): the connection's probes have deadlines of their own, so
// connect runs the sign-in between two attempts, with -timeout stopped.
// Once connected, a challenge (a step-up) is answered at once.
type signIn struct {
	oauth    *client.OAuthAuthorizer
	pause    func() func() // stops -timeout during a sign-in; returns the resume
	loopback *client.Loopback
	e        *env

	store     client.TokenStore // the person's kept token (nil: none kept)
	machine   bool              // client credentials: no person to wait for
	deferring atomic.Bool
	mu        sync.Mutex
	note      string // why the token is not kept, said after a sign-in
	put       *putOff
}

// putOff is the challenge of a sign-in put off.
type putOff struct {
	req     *http.Request
	resp    *http.Response
	attempt int
}

// errNeedSignIn ends a connection attempt that needs a person to sign in.
var errNeedSignIn = errors.New("a sign-in is needed")

// newSignIn prepares the sign-in for url: its redirect listener on
// 127.0.0.1 (a free port) listens until Close.
func newSignIn(e *env, f *signInFlags, url string, pause func() func()) (*signIn, error) {
	if f.clientSecret != "" && f.clientID == "" {
		return nil, usagef("-client-secret needs -client-id")
	}
	s := &signIn{pause: pause, e: e}
	s.deferring.Store(true)
	cfg := client.OAuthConfig{ClientID: f.clientID, ClientSecret: f.clientSecret, ClientName: "sake",
		Scopes: strings.Fields(f.scope), HTTPClient: &http.Client{Timeout: 30 * time.Second}}
	switch {
	case f.clientSecret != "":
		// A machine's token is taken again at each run: no person waits
		// for it, and it is not left on disk.
		cfg.ClientCredentials = true
		s.machine = true
	default:
		cfg.OfflineAccess = true
		if dir, err := tokenDir(e); err == nil {
			s.store = &tokenFile{dir: dir, url: url}
			cfg.Store = s.store
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
			cfg.Browser, cfg.RedirectURL = s.browser, lb.RedirectURL()
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
	if ch.ResourceMetadata == "" {
		return false, nil
	}
	if s.deferring.Load() {
		if !s.machine && !s.refreshable(ctx, ch, attempt) {
			// A person must sign in: put off, without asking the
			// authorization server for anything yet.
			s.mu.Lock()
			s.put = &putOff{req: req, resp: resp, attempt: attempt}
			s.mu.Unlock()
			return false, errNeedSignIn
		}
		retry, err := s.oauth.Challenged(ctx, req, resp, attempt)
		if errors.Is(err, errNeedSignIn) {
			s.mu.Lock()
			s.put = &putOff{req: req, resp: resp, attempt: attempt}
			s.mu.Unlock()
		}
		return retry, err
	}
	return s.run(ctx, req, resp, attempt)
}

// refreshable reports whether a refresh of the kept token may answer the
// challenge (what the OAuth authorizer tries first).
func (s *signIn) refreshable(ctx context.Context, ch client.Challenge, attempt int) bool {
	if s.store == nil || ch.Error != "invalid_token" || attempt != 0 {
		return false
	}
	t, err := s.store.Load(ctx, "")
	return err == nil && t != nil && t.RefreshToken != ""
}

// run answers a challenge, signing in if need be, with -timeout stopped.
func (s *signIn) run(ctx context.Context, req *http.Request, resp *http.Response, attempt int) (bool, error) {
	resume := s.pause()
	defer resume()
	ctx, cancel := context.WithTimeout(ctx, maxSignIn)
	defer cancel()
	retry, err := s.oauth.Challenged(ctx, req, resp, attempt)
	if err != nil {
		return false, fmt.Errorf("signing in: %w", err)
	}
	s.mu.Lock()
	if retry && s.note != "" {
		fmt.Fprintln(s.e.stderr, s.note)
		s.note = ""
	}
	s.mu.Unlock()
	return retry, nil
}

// signInNow runs the sign-in a connection attempt put off, and answers
// later challenges at once. It reports whether there was one to run.
func (s *signIn) signInNow(ctx context.Context) (bool, error) {
	s.deferring.Store(false)
	s.mu.Lock()
	p := s.put
	s.put = nil
	s.mu.Unlock()
	if p == nil {
		return false, nil
	}
	_, err := s.run(ctx, p.req, p.resp, p.attempt)
	return true, err
}

// browser is the code flow's Browser: put off while connecting, else the
// loopback's.
func (s *signIn) browser(ctx context.Context, authURL string) (*url.URL, error) {
	if s.deferring.Load() {
		return nil, errNeedSignIn
	}
	return s.loopback.Browser(ctx, authURL)
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

// showCode shows the device flow's page and code (put off while
// connecting).
func (s *signIn) showCode(_ context.Context, c client.DeviceCode) error {
	if s.deferring.Load() {
		return errNeedSignIn
	}
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
