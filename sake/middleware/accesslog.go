package middleware

import (
	"context"
	"log/slog"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// maxLogged is how much of a name, URI or recorded argument a record keeps.
const (
	maxLoggedName = 256
	maxLoggedArgs = 8 << 10
)

// AccessLog describes the access log: one slog record per request and
// notification the server handles, in either era, over any transport.
type AccessLog struct {
	// Logger receives the records (default slog.Default()).
	Logger *slog.Logger
	// Level is the level of the records of requests that succeeded or
	// ended in a tool error (default slog.LevelInfo); protocol errors
	// are logged one level higher (Warn by default).
	Level slog.Level
	// RecordArguments names tools whose arguments are logged (as
	// "arguments", cut at 8 KiB). By default no arguments are: they may
	// hold what the access log must not.
	RecordArguments []string
	// Clock is the source of time for durations (default time.Now).
	Clock func() time.Time
}

// Option returns the access log as a server option:
//
//	srv := sake.MustNew(impl, middleware.AccessLog{}.Option())
//
// Each record ("mcp request", or "mcp notification") has: method;
// component (the tool of tools/call, the prompt of prompts/get, the URI
// of resources/read and subscriptions), when there is one; subject (as
// Subject.String: "sub:…", "client:…", "addr:…" or "anonymous");
// client_id, when the caller has one; era and protocol_version; transport;
// duration; outcome ("ok", "tool_error", "input_required", "task",
// "cancelled" or "error") and code (the JSON-RPC error code) on errors;
// bytes_in and bytes_out (the message and the reply). Never arguments
// (except of the tools named in RecordArguments), results, tokens or
// headers. It observes the server (sake.Observe) rather than wrapping its
// handler, so it sees what middleware does not: notifications, and
// requests refused before any handler runs.
func (al AccessLog) Option() sake.Option {
	l := &accessLog{logger: al.Logger, level: al.Level, now: al.Clock}
	if l.logger == nil {
		l.logger = slog.Default()
	}
	if l.now == nil {
		l.now = time.Now
	}
	if len(al.RecordArguments) > 0 {
		l.record = set(al.RecordArguments)
	}
	return sake.Observe(sake.Hooks{Request: l.request})
}

type accessLog struct {
	logger *slog.Logger
	level  slog.Level
	record map[string]bool
	now    func() time.Time
}

func (l *accessLog) request(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
	if !l.logger.Enabled(ctx, l.level+4) { // nothing would be written
		return nil, nil
	}
	start := l.now()
	return nil, func(d sake.RequestDone) { l.done(ctx, req, start, d) }
}

func (l *accessLog) done(ctx context.Context, req *sake.Request, start time.Time, d sake.RequestDone) {
	level, outcome, code := l.level, "ok", 0
	switch {
	case d.Reply != nil && d.Reply.Cancelled:
		outcome = "cancelled"
	case d.Error != nil:
		outcome, code = "error", d.Error.Code
		level += 4
	case d.ToolError:
		outcome = "tool_error"
	case d.ResultType != "":
		outcome = d.ResultType
	}
	if !l.logger.Enabled(ctx, level) {
		return
	}
	var buf [16]slog.Attr
	attrs := append(buf[:0], slog.String("method", cutRunes(req.Method, maxLoggedName)))
	if c := component(req); c != "" {
		attrs = append(attrs, slog.String("component", cutRunes(c, maxLoggedName)))
	}
	attrs = append(attrs, slog.String("subject", cutRunes(SubjectOf(req).String(), maxLoggedName)))
	if id := req.Identity; id != nil && id.ClientID != "" {
		attrs = append(attrs, slog.String("client_id", cutRunes(id.ClientID, maxLoggedName)))
	}
	attrs = append(attrs, slog.String("era", req.Era.String()))
	if v := req.ProtocolVersion; v != "" {
		attrs = append(attrs, slog.String("protocol_version", cutRunes(v, 32)))
	}
	if tr := req.Transport(); tr != "" {
		attrs = append(attrs, slog.String("transport", tr))
	}
	attrs = append(attrs, slog.Duration("duration", l.now().Sub(start)), slog.String("outcome", outcome))
	if code != 0 {
		attrs = append(attrs, slog.Int("code", code))
	}
	out := 0
	if d.Reply != nil {
		out = len(d.Reply.Body)
	}
	attrs = append(attrs, slog.Int("bytes_in", len(req.Message)), slog.Int("bytes_out", out))
	if l.record != nil && req.Method == "tools/call" && l.record[req.Params.Name] && len(req.Params.Arguments) > 0 {
		attrs = append(attrs, slog.String("arguments", cutRunes(string(req.Params.Arguments), maxLoggedArgs)))
	}
	msg := "mcp request"
	if req.ID == nil {
		msg = "mcp notification"
	}
	l.logger.LogAttrs(ctx, level, msg, attrs...)
}

// component is what a request is about: a tool, a prompt or a URI.
func component(req *sake.Request) string {
	switch req.Method {
	case "tools/call", "prompts/get":
		return req.Params.Name
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return req.Params.URI
	}
	return ""
}
