package middleware

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
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
// headers. It observes the server (sake.ObserveOutcome) rather than
// wrapping its handler, so it sees what middleware does not:
// notifications, and requests refused before any handler runs. It looks
// at the outcome only (of a tool result, whether isError is set; of the
// reply, its length), so a tool result left encoded, a proxy's or a
// gateway's, still goes into the reply as the remote wrote it.
func (al AccessLog) Option() sake.Option {
	return sake.ObserveOutcome(sake.Hooks{Request: al.build().request})
}

// build makes the access log al describes.
func (al AccessLog) build() *accessLog {
	l := &accessLog{logger: al.Logger, level: al.Level, now: al.Clock}
	if l.logger == nil {
		l.logger = slog.Default()
	}
	if l.now == nil {
		l.now, l.monotonic = time.Now, true
		now := time.Now()
		l.anchor.Store(&now)
	}
	if len(al.RecordArguments) > 0 {
		l.record = set(al.RecordArguments)
	}
	l.sink, _ = l.logger.Handler().(*JSONSink)
	if l.sink != nil {
		l.heads = newEntryHeads(l.sink, l.level)
	}
	l.pool.New = func() any {
		r := &pending{log: l}
		r.done = r.finish
		return r
	}
	return l
}

type accessLog struct {
	logger *slog.Logger
	sink   *JSONSink // the logger's handler, when it is one: records skip slog
	heads  entryHeads
	level  slog.Level
	record map[string]bool
	now    func() time.Time
	// monotonic: now is time.Now, so the clock is read off the monotonic
	// clock alone (time.Since), at half the cost of time.Now: a request
	// starts and ends at offsets from anchor, a time.Now taken anew when
	// the one before is a second old, so that the record's time (anchor
	// plus the end's offset) follows a wall clock that was set within a
	// second.
	monotonic bool
	anchor    atomic.Pointer[time.Time]
	pool      sync.Pool // of *pending
}

// anchorAge is how long an anchor of the access log's clock is used.
const anchorAge = time.Second

// pending is a request being logged: its done function is made once per
// pending, which is recycled, so a request costs no closure.
type pending struct {
	log   *accessLog
	ctx   context.Context
	req   *sake.Request
	start time.Time     // with a clock of the access log's own
	since time.Duration // with the default clock: the start, after anchor
	anch  *time.Time    // with the default clock: what since counts from
	done  func(sake.RequestDone)
	// The text of the last record written through this pending from
	// "method" to "transport" included, and what it was made of: the
	// calls of one caller to one tool write the same, and a pending
	// usually serves the same CPU's calls again (sync.Pool).
	rec     []byte // the buffer its record is encoded into
	mid     []byte
	midOf   middleKey
	midKept bool
}

// middleKey is what the middle of a record is made of.
type middleKey struct {
	method, component, clientID, era, ver, transport string
	subject                                          Subject
}

// maxKeptMiddle is the longest middle of a record a pending keeps.
const maxKeptMiddle = 1 << 10

func (l *accessLog) request(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
	if !l.logger.Enabled(ctx, l.level+4) { // nothing would be written
		return nil, nil
	}
	p := l.pool.Get().(*pending)
	p.ctx, p.req = ctx, req
	if l.monotonic {
		p.anch = l.anchor.Load()
		p.since = time.Since(*p.anch)
	} else {
		p.start = l.now()
	}
	return nil, p.done
}

func (p *pending) finish(d sake.RequestDone) {
	l := p.log
	l.done(p, d)
	p.ctx, p.req, p.anch = nil, nil, nil
	l.pool.Put(p)
}

// clock sets the end of e and its duration.
func (l *accessLog) clock(p *pending, e *entry) {
	if !l.monotonic {
		e.end = l.now()
		e.duration = e.end.Sub(p.start)
		return
	}
	end := time.Since(*p.anch)
	e.duration = end - p.since
	e.end = p.anch.Add(end)
	if end > anchorAge && l.anchor.Load() == p.anch {
		now := time.Now()
		l.anchor.CompareAndSwap(p.anch, &now)
	}
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

func (l *accessLog) done(p *pending, d sake.RequestDone) {
	ctx, req := p.ctx, p.req
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
	l.clock(p, &e)
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
		l.writeEntry(p, &e)
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
// slog record, without making one. It is encoded into the buffer of the
// pending request (which is pooled) before the sink's lock is taken.
func (l *accessLog) writeEntry(p *pending, e *entry) {
	b := l.appendEntry(p.rec[:0], p, e)
	l.sink.core.write(b) // copies b, or writes it out, before it returns
	if cap(b) <= maxPooledRecord {
		p.rec = b
	} else {
		p.rec = nil
	}
}

// maxPooledRecord is the largest buffer a record leaves in the pool.
const maxPooledRecord = 64 << 10

// appendEntry appends a record as a line of JSON. What the server writes
// the same way in every record (the level and message with their keys,
// the attributes of the sink's WithAttrs, the keys around the era and the
// outcome) was encoded once, in heads; the rest is appended in place,
// after the buffer has grown once to hold a record.
func (l *accessLog) appendEntry(b []byte, p *pending, e *entry) []byte {
	b = slices.Grow(b, 320+len(e.method)+len(e.component)+len(e.subject.ID)+len(e.clientID)+len(e.ver)+len(e.transport)+len(e.arguments))
	if head := l.heads.of(e); head != "" && !e.end.IsZero() {
		b = append(b, `{"time":"`...)
		b = appendTime(b, e.end)
		b = append(b, head...)
	} else {
		b = l.sink.appendHead(b, e.end, e.level, e.msg)
	}
	b = p.appendMiddle(b, e)
	b = append(b, `"duration":`...)
	b = strconv.AppendInt(b, int64(e.duration), 10)
	b = append(b, `,"outcome":"`...)
	b = append(b, e.outcome...)
	b = append(b, `",`...)
	if e.code != 0 {
		b = append(b, `"code":`...)
		b = strconv.AppendInt(b, int64(e.code), 10)
		b = append(b, ',')
	}
	b = append(b, `"bytes_in":`...)
	b = strconv.AppendInt(b, int64(e.in), 10)
	b = append(b, `,"bytes_out":`...)
	b = strconv.AppendInt(b, int64(e.out), 10)
	b = append(b, ',')
	b = appendMember(b, `"arguments":`, e.arguments)
	return l.sink.appendTail(b)
}

// appendMiddle appends the members of e from "method" to "transport",
// copied from p's last record when they are the same.
func (p *pending) appendMiddle(b []byte, e *entry) []byte {
	k := middleKey{method: e.method, component: e.component, clientID: e.clientID,
		era: e.era, ver: e.ver, transport: e.transport, subject: e.subject}
	if p.midKept && p.midOf == k {
		return append(b, p.mid...)
	}
	start := len(b)
	b = appendMiddle(b, e)
	if mid := b[start:]; len(mid) <= maxKeptMiddle {
		p.mid = append(p.mid[:0], mid...)
		p.midOf, p.midKept = k, true
	} else {
		p.midKept = false
	}
	return b
}

// appendMiddle appends the members of e from "method" to "transport".
func appendMiddle(b []byte, e *entry) []byte {
	b = appendMember(b, `"method":`, e.method)
	b = appendMember(b, `"component":`, e.component)
	b = append(b, `"subject":"`...)
	b = append(b, e.subject.prefix()...)
	b = appendEscaped(b, e.subject.ID)
	b = append(b, `",`...)
	b = appendMember(b, `"client_id":`, e.clientID)
	// The era is the server's own word: it needs no escaping.
	if e.era != "" {
		b = append(b, `"era":"`...)
		b = append(b, e.era...)
		b = append(b, `",`...)
	}
	b = appendMember(b, `"protocol_version":`, e.ver)
	return appendMember(b, `"transport":`, e.transport)
}

// appendMember appends key, the JSON string v and a comma, unless v is
// empty.
func appendMember(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, key...)
	b = appendJSONString(b, v)
	return append(b, ',')
}

// entryHeads are the parts of a record between its time and its first
// attribute, encoded once: for a request and a notification, at the
// access log's level and at the level of errors.
type entryHeads struct {
	level slog.Level
	texts [2][2]string // [error][notification]
}

// newEntryHeads encodes the heads of records written to sink at level
// (and level+4 for errors).
func newEntryHeads(sink *JSONSink, level slog.Level) entryHeads {
	h := entryHeads{level: level}
	for i, lvl := range []slog.Level{level, level + 4} {
		for j, msg := range []string{"mcp request", "mcp notification"} {
			b := append([]byte(nil), `","level":`...)
			b = appendJSONString(b, lvl.String())
			b = append(b, `,"msg":`...)
			b = appendJSONString(b, msg)
			b = append(b, ',')
			h.texts[i][j] = string(append(b, sink.pre...))
		}
	}
	return h
}

// of is the head of e, or "" when e is not one of the four.
func (h *entryHeads) of(e *entry) string {
	i, j := 0, 0
	switch e.level {
	case h.level:
	case h.level + 4:
		i = 1
	default:
		return ""
	}
	switch e.msg {
	case "mcp request":
	case "mcp notification":
		j = 1
	default:
		return ""
	}
	return h.texts[i][j]
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
