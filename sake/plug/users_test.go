package plug_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

// A loopback Origin on another port is refused when the handler was not
// reached on a loopback address: the rule is for the user's own machine.
func TestLoopbackOriginNeedsALoopbackBind(t *testing.T) {
	t.Parallel()
	h := plug.New(sake.MustNew(echo{}))
	t.Cleanup(h.Close)
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`
	req := httptest.NewRequest(http.MethodPost, "http://mcp.example.com/mcp", strings.NewReader(body))
	req.Header = modernHeaders("server/discover", "")
	req.Header.Set("Origin", "http://localhost:6274")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a loopback Origin at a public host: %d, want 403", rec.Code)
	}
}

// A GET without a session says which methods the endpoint takes then.
func TestGETWithoutSessionAllowsPOST(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	hdr := http.Header{"Accept": {"text/event-stream"}}
	resp := do(t, ts, http.MethodGet, "", hdr)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET without a session: %d", resp.StatusCode)
	}
	if allow := resp.Header.Get("Allow"); strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
		t.Errorf("405 to a GET with Allow %q: it must not list GET", allow)
	}
	if !strings.Contains(string(b), "Mcp-Session-Id") {
		t.Errorf("the body does not say what is missing: %s", b)
	}
	del := do(t, ts, http.MethodDelete, "", nil)
	if del.StatusCode != http.StatusMethodNotAllowed || strings.Contains(del.Header.Get("Allow"), "DELETE") {
		t.Errorf("DELETE without a session: %d, Allow %q", del.StatusCode, del.Header.Get("Allow"))
	}
}

// The header-mismatch message names the header as the tool declared it.
func TestParamHeaderMessageUsesTheDeclaredName(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, regional{})
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + modernMeta + `,"name":"locate","arguments":{"region":"us-west1","query":"q"}}}`
	for name, value := range map[string]string{"missing": "", "mismatch": "eu-west1"} {
		hdr := modernHeaders("tools/call", "locate")
		if value != "" {
			hdr.Set("mcp-param-region", value)
		}
		r := wantError(t, do(t, ts, http.MethodPost, body, hdr), http.StatusBadRequest, sake.CodeHeaderMismatch)
		if !strings.Contains(r.Error.Message, "Mcp-Param-Region") {
			t.Errorf("%s: %q does not name Mcp-Param-Region", name, r.Error.Message)
		}
	}
}
