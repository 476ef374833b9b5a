package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
)

// errHookPanicked is what a call into the application's code returns
// when it panicked: the request is answered 500 server_error and nothing
// the call was to decide is stored.
var errHookPanicked = errors.New("authserver: the application's code panicked")

// recovered logs a panic value v of the application's hook (with its
// stack, never sent to the client) and returns errHookPanicked. Call it
// as `if v := recover(); v != nil { err = s.recovered(hook, v) }`.
func (s *Server) recovered(hook string, v any) error {
	s.log.Error("authserver: "+hook+" panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	return errHookPanicked
}

// current asks Login.Current, recovering a panic.
func (s *Server) current(r *http.Request) (a *Authentication, err error) {
	defer func() {
		if v := recover(); v != nil {
			a, err = nil, s.recovered("Login.Current", v)
		}
	}()
	return s.login.Current(r)
}

// loginURL asks Login.LoginURL, recovering a panic.
func (s *Server) loginURL(r *http.Request, lr LoginRequest) (u string, err error) {
	defer func() {
		if v := recover(); v != nil {
			u, err = "", s.recovered("Login.LoginURL", v)
		}
	}()
	return s.login.LoginURL(r, lr), nil
}

// lookup asks Login.Lookup, recovering a panic.
func (s *Server) lookup(ctx context.Context, subject string) (subj *Subject, err error) {
	defer func() {
		if v := recover(); v != nil {
			subj, err = nil, s.recovered("Login.Lookup", v)
		}
	}()
	return s.login.Lookup(ctx, subject)
}

// registrationPolicy asks Config.Registration, recovering a panic.
func (s *Server) registrationPolicy(r *http.Request, c *Client) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = s.recovered("Config.Registration", v)
		}
	}()
	return s.cfg.Registration(r.Context(), r, c)
}

// remoteAddress asks Config.RegistrationAddress, recovering a panic.
func (s *Server) remoteAddress(r *http.Request) (addr string, err error) {
	defer func() {
		if v := recover(); v != nil {
			addr, err = "", s.recovered("Config.RegistrationAddress", v)
		}
	}()
	return s.cfg.RegistrationAddress(r), nil
}

// Route kinds for guard: how a request is answered when a handler
// panics anyway (in a Store, a template or anything else the
// application gave).
const (
	answerJSON = iota // an OAuth server_error JSON body
	answerPage        // an HTML error page
)

// guard recovers a panic anywhere in h, logs it with its stack and
// answers 500: a server_error JSON body or an error page. Headers
// already written stay written.
func (s *Server) guard(kind int, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("authserver: panic serving "+r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			e := oerr(ErrServerError, "the request cannot be served now")
			if kind == answerPage {
				s.errorPage(w, r, e)
				return
			}
			writeError(w, r, e)
		}()
		h(w, r)
	}
}
