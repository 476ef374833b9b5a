package middleware

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
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
		l.now, l.monotonic = time.Now, true
	}
	if len(al.RecordArguments) > 0 {
		l.record = set(al.RecordArguments)
	}
	l.sink, _ = l.logger.Handler().(*JSONSink)
	l.pool.New = func() any {
		r := &pending{log: l}
		r.done = r.finish
		return r
	}
	return sake.Observe(sake.Hooks{Request: l.request})
}

type accessLog struct {
	logger *slog.Logger
	sink   *JSONSink // the logger's handler, when it is one: records skip slog
	level  slog.Level
	record map[string]bool
	now    func() time.Time
	// monotonic: now is time.Now, so a duration is read off the
	// monotonic clock alone (time.Since), at half the cost of time.Now,
	// and the record's time is the start plus the duration.
	monotonic bool
	pool      sync.Pool // of *pending
}

// pending is a request being logged: its done function is made once per
// pending, which is recycled, so a request costs no closure.
type pending struct {
	log   *accessLog
	ctx   context.Context
	req   *sake.Request
	start time.Time
	done  func(sake.RequestDone)
}

func (l *accessLog) request(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
	if !l.logger.Enabled(ctx, l.level+4) { // nothing would be written
		return nil, nil
	}
	p := l.pool.Get().(*pending)
	p.ctx, p.req, p.start = ctx, req, l.now()
	return nil, p.done
}

func (p *pending) finish(d sake.RequestDone) {
	l := p.log
	l.done(p.ctx, p.req, p.start, d)
	p.ctx, p.req = nil, nil
	l.pool.Put(p)
}

// entry is one access log record.
type entry struct {
	level                                      slog.Level
	msg, method, component, clientID, era, ver string
	transport, outcome, arguments              string
	subject                                    Subject
	end                                        time.Time
	duration                                   time.Duration
	code, in, out                              int
}

func (l *accessLog) done(ctx context.Context, req *sake.Request, start time.Time, d sake.RequestDone) {
	e := entry{level: l.level, outcome: "ok"}
	switch {
	case d.Reply != nil && d.Reply.Cancelled:
		e.outcome = "cancelled"
	case d.Error != nil:
		e.outcome, e.code = "error", d.Error.Code
		e.level += 4
	case d.ToolError:
		e.outcome = "tool_error"
	case d.ResultType != "":
		e.outcome = d.ResultType
	}
	if !l.logger.Enabled(ctx, e.level) {
		return
	}
	e.method = cutRunes(req.Method, maxLoggedName)
	e.component = cutRunes(component(req), maxLoggedName)
	e.subject = SubjectOf(req)
	e.subject.ID = cutRunes(e.subject.ID, maxLoggedName-len("custom:"))
	if id := req.Identity; id != nil {
		e.clientID = cutRunes(id.ClientID, maxLoggedName)
	}
	e.era = req.Era.String()
	e.ver = cutRunes(req.ProtocolVersion, 32)
	e.transport = req.Transport()
	if l.monotonic {
		e.duration = time.Since(start)
		e.end = start.Add(e.duration)
	} else {
		e.end = l.now()
		e.duration = e.end.Sub(start)
	}
	if d.Reply != nil {
		e.out = len(d.Reply.Body)
	}
	e.in = len(req.Message)
	if l.record != nil && req.Method == "tools/call" && l.record[req.Params.Name] && len(req.Params.Arguments) > 0 {
		e.arguments = cutRunes(string(req.Params.Arguments), maxLoggedArgs)
	}
	e.msg = "mcp request"
	if req.ID == nil {
		e.msg = "mcp notification"
	}
	if l.sink != nil {
		l.writeEntry(&e)
		return
	}
	var buf [16]slog.Attr
	attrs := append(buf[:0], slog.String("method", e.method))
	if e.component != "" {
		attrs = append(attrs, slog.String("component", e.component))
	}
	attrs = append(attrs, slog.String("subject", e.subject.String()))
	if e.clientID != "" {
		attrs = append(attrs, slog.String("client_id", e.clientID))
	}
	attrs = append(attrs, slog.String("era", e.era))
	if e.ver != "" {
		attrs = append(attrs, slog.String("protocol_version", e.ver))
	}
	if e.transport != "" {
		attrs = append(attrs, slog.String("transport", e.transport))
	}
	attrs = append(attrs, slog.Duration("duration", e.duration), slog.String("outcome", e.outcome))
	if e.code != 0 {
		attrs = append(attrs, slog.Int("code", e.code))
	}
	attrs = append(attrs, slog.Int("bytes_in", e.in), slog.Int("bytes_out", e.out))
	if e.arguments != "" {
		attrs = append(attrs, slog.String("arguments", e.arguments))
	}
	l.logger.LogAttrs(ctx, e.level, e.msg, attrs...)
}

// writeEntry writes a record to the sink as the sink would encode the
// slog record, without making one.
func (l *accessLog) writeEntry(e *entry) {
	l.sink.core.writeWith(func(b []byte) []byte { return l.appendEntry(b, e) })
}

// appendEntry appends a record as a line of JSON.
func (l *accessLog) appendEntry(b []byte, e *entry) []byte {
	b = l.sink.appendHead(b, e.end, e.level, e.msg)
	str := func(key, v string) {
		if v != "" {
			b = append(b, key...)
			b = appendJSONString(b, v)
			b = append(b, ',')
		}
	}
	num := func(key string, n int64) {
		b = append(b, key...)
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ',')
	}
	str(`"method":`, e.method)
	str(`"component":`, e.component)
	b = append(b, `"subject":"`...)
	b = append(b, e.subject.prefix()...)
	b = appendEscaped(b, e.subject.ID)
	b = append(b, `",`...)
	// The era and the outcome are the server's own words: they need no
	// escaping.
	raw := func(key, v string) {
		if v != "" {
			b = append(b, key...)
			b = append(b, v...)
			b = append(b, `",`...)
		}
	}
	str(`"client_id":`, e.clientID)
	raw(`"era":"`, e.era)
	str(`"protocol_version":`, e.ver)
	str(`"transport":`, e.transport)
	num(`"duration":`, int64(e.duration))
	raw(`"outcome":"`, e.outcome)
	if e.code != 0 {
		num(`"code":`, int64(e.code))
	}
	num(`"bytes_in":`, int64(e.in))
	num(`"bytes_out":`, int64(e.out))
	str(`"arguments":`, e.arguments)
	return l.sink.appendTail(b)
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
