package saketest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// Options compose in any order: a later Capabilities keeps the
// capabilities the answer handlers declared.
func TestOptionsComposeInAnyOrder(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, interview{}, era,
			saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
				return saketest.Accept(map[string]any{"name": "Rui"})
			}),
			saketest.SamplingText("Paris"),
			saketest.Roots(sake.Root{URI: "file:///x"}),
			saketest.Capabilities(protocol.ClientCapabilities{Experimental: map[string]json.RawMessage{"x": json.RawMessage(`{}`)}}))
		res, err := c.CallTool("survey", nil)
		if err != nil || res.Text() != "Rui|Paris|1 roots" {
			t.Fatalf("survey = %v, %v", res, err)
		}
	})
}

type sampler struct{}

func (sampler) Ask(ctx *sake.Context) (string, error) {
	temp := 0.25
	res, err := ctx.Sample("q", sake.SamplingRequest{
		Messages:         []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text("Capital of France?")}},
		SystemPrompt:     "protocol.ElicitResult in one word.",
		MaxTokens:        7,
		Temperature:      &temp,
		StopSequences:    []string{"\n"},
		ModelPreferences: json.RawMessage(`{"hints":[{"name":"small"}]}`),
		IncludeContext:   "none",
		Metadata:         json.RawMessage(`{"k":"v"}`),
	})
	if err != nil {
		return "", err
	}
	return res.Text(), nil
}

// The sampling handler receives the whole request, not only its messages.
func TestSamplingHandlerSeesTheWholeRequest(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		var mu sync.Mutex
		var got sake.SamplingRequest
		c := saketest.Connect(t, sampler{}, era, saketest.Sampling(func(r sake.SamplingRequest) (*sake.SamplingResult, error) {
			mu.Lock()
			got = r
			mu.Unlock()
			return &sake.SamplingResult{Role: sake.RoleAssistant, Content: sake.Text("Paris"), Model: "m"}, nil
		}))
		if res, err := c.CallTool("ask", nil); err != nil || res.Text() != "Paris" {
			t.Fatalf("ask = %v, %v", res, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if got.SystemPrompt != "protocol.ElicitResult in one word." || got.MaxTokens != 7 || got.Temperature == nil || *got.Temperature != 0.25 ||
			len(got.StopSequences) != 1 || got.IncludeContext != "none" ||
			!strings.Contains(string(got.ModelPreferences), "small") || !strings.Contains(string(got.Metadata), `"v"`) {
			t.Errorf("the handler got %+v", got)
		}
		if len(got.Messages) != 1 || got.Messages[0].Role != sake.RoleUser {
			t.Fatalf("messages = %+v", got.Messages)
		}
		if tc, ok := got.Messages[0].Content.(*sake.TextContent); !ok || tc.Text != "Capital of France?" {
			t.Errorf("message content = %#v", got.Messages[0].Content)
		}
	})
}

// TaskTimeout bounds CallTool on a task in both eras.
func TestTaskTimeoutInBothEras(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv, _, e := taskServer(t)
		defer close(e.release)
		c := saketest.Connect(t, srv, era, saketest.TaskTimeout(20*time.Millisecond))
		_, err := c.CallTool("export", nil)
		if !errors.Is(err, saketest.ErrTaskTimeout) {
			t.Fatalf("CallTool on a task that does not end = %v, want ErrTaskTimeout", err)
		}
		h := plug.New(srv)
		t.Cleanup(h.Close)
		hc := saketest.Connect(t, srv, era, saketest.Handler(h, "/mcp"), saketest.TaskTimeout(20*time.Millisecond))
		if _, err := hc.CallTool("export", nil); !errors.Is(err, saketest.ErrTaskTimeout) {
			t.Fatalf("through the HTTP stack: CallTool = %v, want ErrTaskTimeout", err)
		}
	})
}

// requireHeader is a host middleware that refuses requests without a
// header.
func requireHeader(name string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(name) == "" {
			http.Error(w, "missing "+name, http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Close sends its DELETE with the client's headers, so the session ends.
func TestHandlerCloseSendsHeaders(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(Greeter{})
	h := plug.New(srv)
	t.Cleanup(h.Close)
	stack := requireHeader("X-Tenant", h)
	c := saketest.Connect(t, srv, saketest.Legacy(), saketest.Handler(stack, "/mcp"), saketest.Header("X-Tenant", "acme"))
	sid := c.Session().SessionID
	if sid == "" {
		t.Fatal("no session id")
	}
	c.Close()
	req := httptest.NewRequest(http.MethodPost, "http://example.com/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("X-Tenant", "acme")
	rec := httptest.NewRecorder()
	stack.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound {
		t.Errorf("the session after Close answers %d, want 404 (ended)", rec.Code)
	}
}

type where struct{}

func (where) Where(ctx *sake.Context) (string, error) { return ctx.Request().BaseURL, nil }

// BaseURL is the endpoint's whole URL through Handler too.
func TestHandlerBaseURLIsTheEndpoint(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(where{})
		h := plug.New(srv, plug.AllowedHosts("*"))
		t.Cleanup(h.Close)
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		c := saketest.Connect(t, srv, era, saketest.Handler(mux, ""), saketest.BaseURL("https://mcp.acme.test/mcp"))
		res, err := c.CallTool("where", nil)
		if err != nil || res.Text() != "https://mcp.acme.test/mcp" {
			t.Fatalf("where = %v, %v", res, err)
		}
		mem := saketest.Connect(t, where{}, era, saketest.BaseURL("https://mcp.acme.test/mcp"))
		if res, err := mem.CallTool("where", nil); err != nil || res.Text() != "https://mcp.acme.test/mcp" {
			t.Fatalf("in memory: where = %v, %v", res, err)
		}
	})
}

// Through Handler, an authorization refusal keeps its challenge.
func TestHandlerAuthErrorsCarryTheChallenge(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		const resource = "http://example.com/mcp"
		const metadata = "http://example.com/.well-known/oauth-protected-resource/mcp"
		secret := []byte("a test secret of at least 32 bytes!")
		iss := &auth.Issuer{Issuer: "https://issuer.test", Secret: secret, Audience: resource}
		v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: iss.Issuer, Audience: []string{resource}, HMACSecret: secret})
		if err != nil {
			t.Fatal(err)
		}
		srv := sake.MustNew(vault{})
		h := plug.New(srv, plug.Authorization(v, metadata))
		t.Cleanup(h.Close)
		c := saketest.Connect(t, srv, era, saketest.Handler(h, "/mcp"), saketest.TokenIssuer(iss),
			saketest.Subject("ana"), saketest.Scopes("vault:read"))
		_, err = c.CallTool("write", nil)
		var se *protocol.InsufficientScopeError
		if !errors.As(err, &se) || strings.Join(se.Scopes, " ") != "vault:read vault:write" || se.ResourceMetadata != metadata {
			t.Fatalf("write = %#v, want the scopes and the resource metadata", err)
		}
		strong := saketest.Connect(t, srv, era, saketest.Handler(h, "/mcp"), saketest.TokenIssuer(iss),
			saketest.Subject("ana"), saketest.Scopes("vault:write"))
		_, err = strong.CallTool("destroy", nil)
		var ae *protocol.InsufficientAuthenticationError
		if !errors.As(err, &ae) || strings.Join(ae.ACRValues, " ") != "urn:mfa" || ae.MaxAge == nil ||
			*ae.MaxAge != 5*time.Minute || ae.ResourceMetadata != metadata {
			t.Fatalf("destroy = %#v, want acr_values, max_age and the resource metadata", err)
		}
	})
}

type bomb struct{}

func (bomb) Boom(ctx *sake.Context) (string, error) { panic("kaboom") }

// panicTB records what a test reports, and which function testing would
// name as the place of each error: the first caller that is not a helper.
type panicTB struct {
	*testing.T
	mu      sync.Mutex
	helpers map[string]bool
	errs    []string
	places  []string
	logs    []string
}

func (p *panicTB) Helper() {
	pc, _, _, _ := runtime.Caller(1)
	p.mu.Lock()
	p.helpers[runtime.FuncForPC(pc).Name()] = true
	p.mu.Unlock()
}

func (p *panicTB) Errorf(format string, args ...any) {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	p.mu.Lock()
	defer p.mu.Unlock()
	place := ""
	for {
		f, more := frames.Next()
		if !p.helpers[f.Function] {
			place = f.Function
			break
		}
		if !more {
			break
		}
	}
	p.errs = append(p.errs, fmt.Sprintf(format, args...))
	p.places = append(p.places, place)
}

func (p *panicTB) Error(args ...any) { p.Errorf("%s", fmt.Sprint(args...)) }
func (p *panicTB) Log(args ...any) {
	p.mu.Lock()
	p.logs = append(p.logs, fmt.Sprint(args...))
	p.mu.Unlock()
}
func (p *panicTB) Logf(format string, args ...any) { p.Log(fmt.Sprintf(format, args...)) }

// A panic fails the test once, with one stack, at the line that made the
// call.
func TestPanicIsReportedOnceAtTheCall(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		p := &panicTB{T: t, helpers: map[string]bool{}}
		c := saketest.Connect(p, bomb{}, era)
		_, err := c.CallTool("boom", nil)
		if err == nil {
			t.Error("a panicking tool returned no error")
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.errs) != 1 || !strings.Contains(p.errs[0], "kaboom") {
			t.Fatalf("reported %d errors: %q", len(p.errs), p.errs)
		}
		if !strings.Contains(p.places[0], "TestPanicIsReportedOnceAtTheCall") {
			t.Errorf("the panic is reported at %s, not at the test's call", p.places[0])
		}
		all := strings.Join(append(append([]string{}, p.errs...), p.logs...), "\n")
		if n := strings.Count(all, "regress_test.go"); n != 1 {
			t.Errorf("the panicking line appears %d times in the output, want once:\n%s", n, all)
		}
	})
}
