package plug_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

// On a loopback bind any loopback Origin passes, but only one a browser
// could send: scheme, host and a port from 1 to 65535, nothing else.
func TestLoopbackOriginIsParsedStrictly(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	port := ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`
	tests := []struct {
		origin string
		status int
	}{
		{"http://localhost:6274", 200},
		{"http://127.0.0.1", 200},
		{"http://[::1]:8080", 200},
		{"https://localhost", 200},
		{"HTTP://LOCALHOST:65535", 200},
		{"http://127.0.0.1:" + port, 200},

		{"http://127.0.0.1:41657.evil.example", 403},
		{"http://localhost:6274.evil.example", 403},
		{"http://127.0.0.1:416570", 403},
		{"http://127.0.0.1:65536", 403},
		{"http://127.0.0.1:-1", 403},
		{"http://127.0.0.1:+80", 403},
		{"http://127.0.0.1:0", 403},
		{"http://127.0.0.1:080", 403},
		{"http://127.0.0.1:", 403},
		{"http://127.0.0.1:80:80", 403},
		{"http://user@127.0.0.1", 403},
		{"http://127.0.0.1/", 403},
		{"http://127.0.0.1/path", 403},
		{"http://127.0.0.1?q=1", 403},
		{"http://127.0.0.1#f", 403},
		{"http://[::1", 403},
		{"http://[::1]x", 403},
		{"http://[::1]:", 403},
		{"http://::1", 403},
		{"http://[127.0.0.1]:80", 403},
		{"http://[fe80::1%25lo]:80", 403},
		{"http://", 403},
		{"http://:80", 403},
		{"ftp://localhost", 403},
		{"localhost:6274", 403},
		{"http://local host", 403},
	}
	for _, tt := range tests {
		hdr := modernHeaders("server/discover", "")
		hdr.Set("Host", "127.0.0.1:"+port)
		hdr.Set("Origin", tt.origin)
		resp := do(t, ts, http.MethodPost, discover, hdr)
		if resp.StatusCode != tt.status {
			t.Errorf("Origin %q: %d, want %d", tt.origin, resp.StatusCode, tt.status)
			continue
		}
		if tt.status == 403 {
			wantError(t, resp, 403, sake.CodeInvalidRequest)
		}
	}
}

// Away from loopback the Origin must name the Host, parsed as strictly.
func TestSameHostOriginIsParsedStrictly(t *testing.T) {
	t.Parallel()
	_, h, _ := serve(t, echo{})
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`
	tests := []struct {
		host, origin string
		status       int
	}{
		{"mcp.example.com", "https://mcp.example.com", 200},
		{"mcp.example.com", "http://mcp.example.com:80", 200},
		{"mcp.example.com:8443", "https://mcp.example.com:8443", 200},
		{"mcp.example.com", "https://mcp.example.com:443", 200},
		{"mcp.example.com:8443", "https://mcp.example.com:8443.evil.example", 403},
		{"mcp.example.com:8443", "https://mcp.example.com:08443", 403},
		{"mcp.example.com", "https://mcp.example.com:+443", 403},
		{"mcp.example.com", "https://mcp.example.com:", 403},
		{"mcp.example.com", "https://evil.example", 403},
	}
	for _, tt := range tests {
		status := serveFromPublic(t, h, discover, tt.host, tt.origin)
		if status != tt.status {
			t.Errorf("Host %q Origin %q: %d, want %d", tt.host, tt.origin, status, tt.status)
		}
	}
}

// serveFromPublic sends body to h as a request that arrived on a public
// address and returns the status.
func serveFromPublic(t *testing.T, h *plug.Handler, body, host, origin string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://"+host+"/", strings.NewReader(body))
	req.Header = modernHeaders("server/discover", "")
	req.Host = host
	req.Header.Set("Origin", origin)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}
