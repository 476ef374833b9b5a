package plug_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/plug"
)

// mixed has a tool that requires nothing and one that requires a scope.
type mixed struct{}

func (mixed) Declare(d *sake.Declarations) { d.Tool("Read").Scopes("files:read") }

func (mixed) Hello(ctx *sake.Context) (string, error) {
	if id := ctx.Identity(); id != nil {
		return "hello " + id.Subject, nil
	}
	return "hello stranger", nil
}

func (mixed) Read(ctx *sake.Context) (string, error) { return "read by " + ctx.Identity().Subject, nil }

// Under plug.Authorization every request needs a valid token, even a call
// of a tool that requires nothing: anonymous and protected tools do not mix
// on one endpoint. A token without scopes calls the tool that requires
// nothing, and the scoped tool needs its scope. docs/authorization.md says
// so, and serves anonymous tools from a second endpoint, as here.
func TestAnonymousAndProtectedTools(t *testing.T) {
	t.Parallel()
	ts := httptest.NewUnstartedServer(nil)
	resource := "http://" + ts.Listener.Addr().String() + "/mcp"
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: "https://issuer.test", Audience: []string{resource}, HMACSecret: []byte(testSecret)})
	if err != nil {
		t.Fatal(err)
	}
	protected := plug.New(sake.MustNew(mixed{}), plug.Authorization(v, auth.MetadataURL(resource)))
	public := plug.New(sake.MustNew(mixed{}, sake.Name("public", "1.0.0")))
	t.Cleanup(protected.Close)
	t.Cleanup(public.Close)
	mux := http.NewServeMux()
	mux.Handle("/mcp", protected)
	mux.Handle("/public/mcp", public)
	ts.Config.Handler = mux
	ts.Start()
	t.Cleanup(ts.Close)
	iss := &auth.Issuer{Issuer: "https://issuer.test", Secret: []byte(testSecret), Audience: resource}
	noScopes, _ := iss.Issue("ana", "app", nil, "", time.Time{}, "")
	reader, _ := iss.Issue("ana", "app", []string{"files:read"}, "", time.Time{}, "")

	for _, tc := range []struct {
		name, token, tool string
		status            int
		has               string
	}{
		{"anonymous, a tool that requires nothing", "", "hello", 401, ""},
		{"anonymous, a scoped tool", "", "read", 401, ""},
		{"a token without scopes, a tool that requires nothing", noScopes, "hello", 200, "hello ana"},
		{"a token without scopes, a scoped tool", noScopes, "read", 403, ""},
		{"a token with the scope", reader, "read", 200, "read by ana"},
	} {
		resp, body := callWith(t, ts, tc.token, tc.tool)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.has) {
			t.Errorf("%s: %d %s, want %d with %q", tc.name, resp.StatusCode, body, tc.status, tc.has)
		}
		if tc.status == 401 && !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+auth.MetadataURL(resource)+`"`) {
			t.Errorf("%s: the 401 has no challenge naming the metadata: %q", tc.name, resp.Header.Get("WWW-Authenticate"))
		}
	}

	// The second endpoint, without Authorization, serves anyone; its
	// scoped tool still refuses an anonymous caller.
	resp, body := callAt(t, ts, "/public/mcp", "hello")
	if resp.StatusCode != 200 || !strings.Contains(body, "hello stranger") {
		t.Errorf("anonymous hello on the public endpoint: %d %s", resp.StatusCode, body)
	}
	if resp, body := callAt(t, ts, "/public/mcp", "read"); !strings.Contains(body, `"code":-31403`) {
		t.Errorf("anonymous read on the public endpoint: %d %s, want the insufficient scope error", resp.StatusCode, body)
	}
}

// callAt calls tool anonymously at path of ts, in the 2026-07-28 era.
func callAt(t *testing.T, ts *httptest.Server, path, tool string) (*http.Response, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}
