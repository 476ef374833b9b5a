package middleware

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// The defaults of a JSONSink.
const (
	// DefaultSinkBuffer is how many bytes of records a JSONSink holds
	// before the caller that fills it writes them itself.
	DefaultSinkBuffer = 1 << 20
	// DefaultSinkInterval is how long a record waits, at most, before a
	// JSONSink writes it.
	DefaultSinkInterval = 100 * time.Millisecond
)

// JSONSinkOptions configure a JSONSink. The zero value is the defaults.
type JSONSinkOptions struct {
	// Level is the least severe level written (default slog.LevelInfo).
	Level slog.Leveler
	// Buffer is how many bytes are held; the record that fills the
	// buffer is written, with those before it, by the goroutine that logs
	// it (default DefaultSinkBuffer, 1 MiB). While it writes, the records
	// that follow are held up to twice the buffer; beyond that, each
	// goroutine that logs waits for the writer (records are never
	// dropped).
	Buffer int
	// Interval is how long a record waits at most before it is written
	// (default DefaultSinkInterval, 100 ms).
	Interval time.Duration
}

// JSONSink is a slog.Handler that writes one JSON object a line, as
// slog.JSONHandler does ("time", "level", "msg", then the attributes),
// with an encoder of its own and through a buffer: records are written to
// the io.Writer by a goroutine of the sink's, at most Interval after they
// were logged, so a request does not wait for the writer. The access log
// (AccessLog) recognizes it and writes its records without slog's
// formatting of attributes, which is most of what an access log costs:
//
//	sink := middleware.NewJSONSink(os.Stderr, nil)
//	defer sink.Close()
//	opt := middleware.AccessLog{Logger: slog.New(sink)}.Option()
//
// Records still held when the process ends without Close are lost. Write
// errors are kept; Flush and Close return the first.
type JSONSink struct {
	core *sinkCore
	pre  []byte // attributes of WithAttrs, encoded, each followed by a comma
	open int    // groups of WithGroup left open in pre
}

// NewJSONSink returns a JSONSink writing to w; opts may be nil.
func NewJSONSink(w io.Writer, opts *JSONSinkOptions) *JSONSink {
	c := &sinkCore{w: w, level: slog.LevelInfo, max: DefaultSinkBuffer, interval: DefaultSinkInterval,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	if opts != nil {
		if opts.Level != nil {
			c.level = opts.Level
		}
		if opts.Buffer > 0 {
			c.max = opts.Buffer
		}
		if opts.Interval > 0 {
			c.interval = opts.Interval
		}
	}
	return &JSONSink{core: c}
}

// Enabled implements slog.Handler.
func (s *JSONSink) Enabled(_ context.Context, level slog.Level) bool {
	return level >= s.core.level.Level()
}

// Handle implements slog.Handler.
func (s *JSONSink) Handle(_ context.Context, r slog.Record) error {
	buf := sinkBufs.Get().(*[]byte)
	b := s.appendHead((*buf)[:0], r.Time, r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b = appendAttr(b, a)
		return true
	})
	b = s.appendTail(b)
	s.core.write(b)
	*buf = b
	sinkBufs.Put(buf)
	return nil
}

// WithAttrs implements slog.Handler.
func (s *JSONSink) WithAttrs(attrs []slog.Attr) slog.Handler {
	t := *s
	t.pre = append([]byte(nil), s.pre...)
	for _, a := range attrs {
		t.pre = appendAttr(t.pre, a)
	}
	return &t
}

// WithGroup implements slog.Handler.
func (s *JSONSink) WithGroup(name string) slog.Handler {
	if name == "" {
		return s
	}
	t := *s
	t.pre = appendJSONString(append([]byte(nil), s.pre...), name)
	t.pre = append(t.pre, ":{"...)
	t.open++
	return &t
}

// Flush writes what the sink holds now.
func (s *JSONSink) Flush() error { return s.core.flush() }

// Close writes what the sink holds and stops its goroutine; records logged
// afterwards are written at once.
func (s *JSONSink) Close() error { return s.core.close() }

// appendHead starts a record: its time, level, message and the
// attributes of WithAttrs, with a comma after each.
func (s *JSONSink) appendHead(b []byte, t time.Time, level slog.Level, msg string) []byte {
	b = append(b, '{')
	if !t.IsZero() {
		b = append(b, `"time":"`...)
		b = appendTime(b, t)
		b = append(b, `",`...)
	}
	b = append(b, `"level":`...)
	b = appendJSONString(b, level.String())
	b = append(b, `,"msg":`...)
	b = appendJSONString(b, msg)
	b = append(b, ',')
	return append(b, s.pre...)
}

// appendTail ends a record: it drops the last comma, closes the groups
// and the object, and ends the line.
func (s *JSONSink) appendTail(b []byte) []byte {
	if b[len(b)-1] == ',' {
		b = b[:len(b)-1]
	}
	for range s.open {
		b = append(b, '}')
	}
	return append(b, "}\n"...)
}

// secondText is a second's time of day formatted, with its zone, for
// records of that second.
type secondText struct {
	unix       int64
	loc        *time.Location
	date, zone []byte // "2006-01-02T15:04:05", "Z07:00"
}

var lastSecond atomic.Pointer[secondText]

// appendTime appends t as t.AppendFormat(b, time.RFC3339Nano) does,
// formatting each second only once.
func appendTime(b []byte, t time.Time) []byte {
	// A second of the cache is within years 0 to 9999: only another
	// second needs the year checked.
	sec := lastSecond.Load()
	if sec == nil || sec.unix != t.Unix() || sec.loc != t.Location() {
		if y := t.Year(); y < 0 || y >= 10000 {
			return t.AppendFormat(b, time.RFC3339Nano)
		}
		sec = &secondText{unix: t.Unix(), loc: t.Location(),
			date: t.AppendFormat(nil, "2006-01-02T15:04:05"), zone: t.AppendFormat(nil, "Z07:00")}
		lastSecond.Store(sec)
	}
	b = append(b, sec.date...)
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, sec.zone...)
}

var sinkBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// sinkCore is the buffer and writer a JSONSink and those derived from it
// share.
type sinkCore struct {
	w        io.Writer
	level    slog.Leveler
	max      int
	interval time.Duration

	mu      sync.Mutex
	buf     []byte
	spare   []byte
	started bool
	closed  bool
	err     error

	wmu     sync.Mutex // one write to w at a time
	kick    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
}

// write adds a record, which the caller encoded outside the lock: the
// lock is held for a copy only, so that callers on other CPUs seldom wait
// for it. The first record into an empty buffer wakes the writer, which
// waits for the interval, then writes all there is. The record that fills
// the buffer is written, with those before it, by its caller; the records
// that follow while it writes are held, unless they find twice the
// buffer held: the writer is then slower than the records come, and each
// caller waits to write (nothing is dropped). So the sink holds at most
// twice the buffer, and a record more per caller.
func (c *sinkCore) write(p []byte) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.writeOut(p)
		return
	}
	before := len(c.buf)
	c.buf = append(c.buf, p...)
	after := len(c.buf)
	if !c.started {
		c.started = true
		go c.run()
	}
	c.mu.Unlock()
	switch {
	case after >= 2*c.max, before < c.max && after >= c.max:
		_ = c.flush()
	case before == 0:
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
}

func (c *sinkCore) run() {
	defer close(c.stopped)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-c.kick:
		case <-c.stop:
			return
		}
		timer.Reset(c.interval)
		select {
		case <-timer.C:
		case <-c.stop:
			timer.Stop()
			return
		}
		_ = c.flush()
	}
}

// flush writes the buffer out.
func (c *sinkCore) flush() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	b := c.buf
	c.buf, c.spare = c.spare[:0], nil
	c.mu.Unlock()
	if len(b) > 0 {
		c.writeLocked(b)
	}
	c.mu.Lock()
	if cap(b) <= 4*c.max {
		c.spare = b[:0]
	}
	err := c.err
	c.mu.Unlock()
	return err
}

func (c *sinkCore) writeOut(p []byte) {
	c.wmu.Lock()
	c.writeLocked(p)
	c.wmu.Unlock()
}

// writeLocked writes p; c.wmu is held.
func (c *sinkCore) writeLocked(p []byte) {
	if _, err := c.w.Write(p); err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
}

func (c *sinkCore) close() error {
	c.mu.Lock()
	wasClosed, started := c.closed, c.started
	c.closed = true
	c.mu.Unlock()
	if !wasClosed {
		close(c.stop)
		if started {
			<-c.stopped
		}
	}
	return c.flush()
}

// appendAttr appends "key":value, and a comma, as slog.JSONHandler writes
// them: attributes with neither key nor value and empty groups are left
// out, a group without a key is inlined.
func appendAttr(b []byte, a slog.Attr) []byte {
	v := a.Value.Resolve()
	if a.Key == "" && v.Equal(slog.Value{}) {
		return b
	}
	if v.Kind() == slog.KindGroup {
		attrs := v.Group()
		if len(attrs) == 0 {
			return b
		}
		if a.Key == "" {
			for _, g := range attrs {
				b = appendAttr(b, g)
			}
			return b
		}
		b = appendJSONString(b, a.Key)
		b = append(b, ":{"...)
		n := len(b)
		for _, g := range attrs {
			b = appendAttr(b, g)
		}
		if len(b) > n {
			b = b[:len(b)-1]
		}
		return append(b, "},"...)
	}
	b = appendJSONString(b, a.Key)
	b = append(b, ':')
	b = appendValue(b, v)
	return append(b, ',')
}

func appendValue(b []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		return appendJSONString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindFloat64:
		f := v.Float64()
		if b2, err := json.Marshal(f); err == nil {
			return append(b, b2...)
		}
		return appendJSONString(b, strconv.FormatFloat(f, 'g', -1, 64))
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		return strconv.AppendInt(b, int64(v.Duration()), 10)
	case slog.KindTime:
		b = append(b, '"')
		b = v.Time().AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	}
	x := v.Any()
	if err, ok := x.(error); ok {
		if _, marshals := x.(json.Marshaler); !marshals {
			return appendJSONString(b, err.Error())
		}
	}
	enc, err := json.Marshal(x)
	if err != nil {
		return appendJSONString(b, "!ERROR:"+err.Error())
	}
	return append(b, enc...)
}

const hexDigits = "0123456789abcdef"

// plainByte says which bytes a JSON string holds as they are: ASCII but
// control characters, quotes and backslashes.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 as U+FFFD, and U+2028 and
// U+2029 escaped, as slog.JSONHandler writes strings.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped appends s escaped as appendJSONString does, without the
// quotes.
func appendEscaped(b []byte, s string) []byte {
	i := 0
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	if i == len(s) { // the common case: nothing to escape
		return append(b, s...)
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if plainByte[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}
