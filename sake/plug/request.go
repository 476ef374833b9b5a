package plug

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// readBody reads the whole body into a pooled buffer. status is non-zero
// when it could not: 413 beyond the limit, 408 when the body is too slow
// (ServeHTTP set the deadline, on rc), 400 for a broken body.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, rc *http.ResponseController) (body []byte, bp *[]byte, status int) {
	limit := h.cfg.maxBody
	if r.ContentLength > limit {
		return nil, nil, http.StatusRequestEntityTooLarge
	}
	if rc != nil {
		// The deadline covers the body only: it is lifted once the body
		// is in, so that a long response (SSE) and the server's watch for
		// the client leaving are not cut short. A body that fails keeps
		// it: net/http would otherwise wait, without a bound, for the
		// rest of the body before closing the connection.
		defer func() {
			if status == 0 {
				_ = rc.SetReadDeadline(time.Time{})
			}
		}()
	}
	rd := http.MaxBytesReader(w, r.Body, limit)
	bp = bodyPool.Get().(*[]byte)
	b := (*bp)[:0]
	if n := r.ContentLength; n > 0 && int64(cap(b)) <= n {
		b = make([]byte, 0, n+1) // +1: room to see EOF without growing
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			*bp = b
			putBody(bp)
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, nil, http.StatusRequestEntityTooLarge
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return nil, nil, http.StatusRequestTimeout
			}
			return nil, nil, http.StatusBadRequest
		}
	}
	*bp = b
	return b, bp, 0
}

var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

func putBody(bp *[]byte) {
	if bp != nil && cap(*bp) <= 64<<10 {
		bodyPool.Put(bp)
	}
}

// readHeaders collects the MCP headers into out, names matched case-insensitively,
// values as received (the dispatcher trims and decodes them). A header
// sent twice is joined with ", ", so it cannot match a body value by
// accident.
func readHeaders(out *sake.Headers, hd http.Header) {
	const param = "mcp-param-"
	for k, v := range hd {
		switch {
		case len(k) == len("mcp-protocol-version") && strings.EqualFold(k, "mcp-protocol-version"):
			out.ProtocolVersion = joinValues(v)
		case len(k) == len("mcp-method") && strings.EqualFold(k, "mcp-method"):
			out.Method, out.HasMethod = joinValues(v), true
		case len(k) == len("mcp-name") && strings.EqualFold(k, "mcp-name"):
			out.Name, out.HasName = joinValues(v), true
		case len(k) > len(param) && strings.EqualFold(k[:len(param)], param):
			if out.Params == nil {
				out.Params = make(map[string]string, 2)
			}
			out.Params[strings.ToLower(k[len(param):])] = joinValues(v)
		}
	}
}

func joinValues(v []string) string {
	switch len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	}
	return strings.Join(v, ", ")
}

// baseURL is the endpoint's URL as the client addressed it, cached while
// it does not change.
type baseURL struct{ scheme, host, path, url string }

func (h *Handler) baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	} else if p := r.Header.Get("X-Forwarded-Proto"); p != "" {
		p, _, _ = strings.Cut(p, ",")
		if p = strings.TrimSpace(p); strings.EqualFold(p, "https") {
			scheme = "https"
		}
	}
	if c := h.base.Load(); c != nil && c.scheme == scheme && c.host == r.Host && c.path == r.URL.Path {
		return c.url
	}
	c := &baseURL{scheme: scheme, host: r.Host, path: r.URL.Path, url: scheme + "://" + r.Host + r.URL.Path}
	h.base.Store(c)
	return c.url
}

// isJSONType reports whether a Content-Type is application/json, with any
// parameters.
func isJSONType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// acceptable reads Accept headers: whether the client takes a JSON reply
// and an SSE stream. No Accept header takes both; q=0 refuses a type.
func acceptable(values []string) (jsonOK, sseOK bool) {
	seen := false
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.TrimSpace(mt)
			if mt == "" {
				continue
			}
			seen = true
			if refused(params) {
				continue
			}
			switch {
			case mt == "*/*":
				jsonOK, sseOK = true, true
			case strings.EqualFold(mt, "application/json"), strings.EqualFold(mt, "application/*"):
				jsonOK = true
			case strings.EqualFold(mt, "text/event-stream"), strings.EqualFold(mt, "text/*"):
				sseOK = true
			}
		}
	}
	if !seen {
		return true, true
	}
	return jsonOK, sseOK
}

// refused reports whether media-range parameters carry q=0.
func refused(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			return err == nil && q == 0
		}
	}
	return false
}

// remoteIP is the client's address without its port: anonymous callers'
// sessions count against it.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
