package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strings"
)

// redacted replaces a secret in what the gateway logs.
const redacted = "REDACTED"

// minSecretLen is the shortest value taken as a secret to hide: shorter
// ones ("1", "on") would garble every record and hide nothing.
const minSecretLen = 4

// secretsOf are the values of e that may carry credentials: its URL's
// userinfo and query values, its headers' values (and the token after an
// auth scheme), its environment values, its OAuth client secret.
func secretsOf(e Entry) []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecretLen {
			out = append(out, v)
		}
	}
	if u, err := url.Parse(e.URL); err == nil {
		if u.User != nil {
			add(u.User.String())
			add(u.User.Username())
			if pw, ok := u.User.Password(); ok {
				add(pw)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	for _, v := range e.Headers {
		add(v)
		if _, token, ok := strings.Cut(v, " "); ok {
			add(strings.TrimSpace(token))
		}
	}
	for _, v := range e.Env {
		add(v)
	}
	if e.OAuth != nil {
		add(e.OAuth.ClientSecret)
	}
	return out
}

// redactingLogger is l with every secret of the entries replaced in the
// records' messages and attributes (errors and other values as their
// text).
func redactingLogger(l *slog.Logger, entries ...Entry) *slog.Logger {
	var secrets []string
	for _, e := range entries {
		secrets = append(secrets, secretsOf(e)...)
	}
	if len(secrets) == 0 {
		return l
	}
	// Longest first, so that a secret holding another is hidden whole.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, redacted)
	}
	return slog.New(&redactHandler{next: l.Handler(), rep: strings.NewReplacer(pairs...)})
}

// redactHandler hides secrets in the records it hands to next.
type redactHandler struct {
	next slog.Handler
	rep  *strings.Replacer
}

func (h *redactHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.rep.Replace(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &redactHandler{next: h.next.WithAttrs(clean), rep: h.rep}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{next: h.next.WithGroup(name), rep: h.rep}
}

// attr is a with its secrets hidden: strings and the text of other
// values (an error, a URL, a struct) are rewritten; numbers, times and
// durations cannot hold a secret and are kept.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.rep.Replace(v.String()))
	case slog.KindAny:
		return slog.String(a.Key, h.rep.Replace(fmt.Sprint(v.Any())))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]any, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Group(a.Key, clean...)
	}
	return slog.Attr{Key: a.Key, Value: v}
}
