package openapi_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/openapi"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// seen is one request the upstream API received.
type seen struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   string
}

// petAPI is a real HTTP server implementing a few operations of the
// Petstore 3.1 document, recording what it receives.
type petAPI struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []seen
}

func (p *petAPI) requests() []seen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seen(nil), p.got...)
}

// last returns the only request received, failing the test otherwise.
func (p *petAPI) last(t *testing.T) seen {
	t.Helper()
	got := p.requests()
	if len(got) != 1 {
		t.Fatalf("the API received %d requests, want 1: %+v", len(got), got)
	}
	return got[0]
}

func newPetAPI(t *testing.T) *petAPI {
	t.Helper()
	p := &petAPI{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.got = append(p.got, seen{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "GET" && r.URL.Path == "/api/v3/pet/findByTags":
			io.WriteString(w, `[{"id":1,"name":"Rex","photoUrls":[]},{"id":2,"name":"Tom","photoUrls":[]}]`)
		case r.Method == "GET" && r.URL.Path == "/api/v3/pet/7":
			io.WriteString(w, `{"id":7,"name":"Rex","photoUrls":["a.png"],"status":"available"}`)
		case r.Method == "GET" && r.URL.Path == "/api/v3/pet/204":
			w.WriteHeader(http.StatusNoContent)
		case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/api/v3/pet/"):
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"code":404,"message":"Pet not found"}`)
		case r.Method == "PUT" && r.URL.Path == "/api/v3/pet":
			w.Write(body) // the updated pet, as sent
		case r.Method == "DELETE" && strings.HasPrefix(r.URL.Path, "/api/v3/pet/"):
			w.Header().Del("Content-Type")
		case r.Method == "POST" && r.URL.Path == "/api/v3/store/order":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"message":"the order book is closed"}`+strings.Repeat(" padding", 1000))
		case r.Method == "GET" && r.URL.Path == "/api/v3/store/inventory":
			io.WriteString(w, `{"available":`+strings.Repeat("1", 4000)+`}`)
		case r.Method == "GET" && r.URL.Path == "/api/v3/store/order/5":
			io.WriteString(w, `{"id":5,"petId":7,"status":"placed"}`)
		default:
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// connect serves the Petstore 3.1 document against the API and connects
// a client to it; the API's idle connections are closed before the
// client's leak check.
func (p *petAPI) connect(t *testing.T, opts []saketest.Option, more ...openapi.Option) *saketest.Client {
	t.Helper()
	hc := p.srv.Client()
	srv, err := openapi.New(readSpec(t, "petstore-3.1.json"),
		append([]openapi.Option{openapi.BaseURL(p.srv.URL + "/api/v3"), openapi.HTTPClient(hc)}, more...)...)
	if err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv, opts...)
	t.Cleanup(hc.CloseIdleConnections)
	return c
}

func TestCallReachesTheAPI(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		t.Run("path", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			res, err := c.CallTool("getPetById", map[string]any{"petId": 7})
			if err != nil {
				t.Fatal(err)
			}
			got := api.last(t)
			if got.Method != "GET" || got.Path != "/api/v3/pet/7" || got.RawQuery != "" || got.Body != "" {
				t.Fatalf("request = %+v", got)
			}
			if got.Header.Get("Accept") != "application/json" || got.Header.Get("Authorization") != "" {
				t.Errorf("headers = %v", got.Header)
			}
			var pet struct{ Name string }
			if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &pet); err != nil || pet.Name != "Rex" {
				t.Fatalf("structured content = %s, %v", res.StructuredContent, err)
			}
		})
		t.Run("query", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			res, err := c.CallTool("findPetsByTags", map[string]any{"tags": []string{"good boy", "a&b"}})
			if err != nil {
				t.Fatal(err)
			}
			got := api.last(t)
			q, _ := url.ParseQuery(got.RawQuery)
			if got.Method != "GET" || got.Path != "/api/v3/pet/findByTags" || strings.Join(q["tags"], "|") != "good boy|a&b" {
				t.Fatalf("request = %+v", got)
			}
			// An array response is structured content under "result".
			var out struct{ Result []struct{ ID int } }
			if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &out); err != nil || len(out.Result) != 2 || out.Result[1].ID != 2 {
				t.Fatalf("structured content = %s, %v", res.StructuredContent, err)
			}
		})
		t.Run("header", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			res, err := c.CallTool("deletePet", map[string]any{"petId": 9, "api_key": "k-123"})
			if err != nil {
				t.Fatal(err)
			}
			got := api.last(t)
			if got.Method != "DELETE" || got.Path != "/api/v3/pet/9" || got.Header.Get("api_key") != "k-123" {
				t.Fatalf("request = %+v", got)
			}
			if res.StructuredContent != nil || res.Text() != "HTTP 200 OK" {
				t.Errorf("result = %+v", res)
			}
		})
		t.Run("body", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			res, err := c.CallTool("updatePet", map[string]any{
				"id": 7, "name": "Rex", "photoUrls": []string{"a.png"}, "category": map[string]any{"id": 1, "name": "Dogs"},
			})
			if err != nil {
				t.Fatal(err)
			}
			got := api.last(t)
			if got.Method != "PUT" || got.Path != "/api/v3/pet" || got.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("request = %+v", got)
			}
			var body map[string]any
			if err := json.Unmarshal([]byte(got.Body), &body); err != nil {
				t.Fatal(err)
			}
			if body["name"] != "Rex" || body["id"] != 7.0 || body["category"].(map[string]any)["name"] != "Dogs" || len(body) != 4 {
				t.Fatalf("body = %s", got.Body)
			}
			if !strings.Contains(res.Text(), `"Dogs"`) {
				t.Errorf("result = %s", res.Text())
			}
		})
		t.Run("no content", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			// The document declares a JSON body; a success without one is
			// text only.
			res, err := c.CallTool("getPetById", map[string]any{"petId": 204})
			if err != nil || res.StructuredContent != nil || res.Text() != "HTTP 204 No Content" {
				t.Fatalf("getPetById = %+v, %v", res, err)
			}
		})
		t.Run("template", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts, openapi.Routes(openapi.RouteMap{Methods: []string{"GET"}, Kind: openapi.ResourceTemplate}))
			contents, err := c.ReadResource("api://getOrderById/5")
			if err != nil {
				t.Fatal(err)
			}
			if got := api.last(t); got.Method != "GET" || got.Path != "/api/v3/store/order/5" {
				t.Fatalf("request = %+v", got)
			}
			if len(contents) != 1 || contents[0].MIMEType != "application/json" || !strings.Contains(contents[0].Text, `"placed"`) {
				t.Fatalf("contents = %+v", contents)
			}
		})
	})
}

func TestCallFailures(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		t.Run("bad arguments", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			for _, args := range []map[string]any{
				{},                          // petId is required
				{"petId": "seven"},          // not an integer
				{"petId": 7, "extra": true}, // not an argument
			} {
				_, err := c.CallTool("getPetById", args)
				var te *sake.ToolError
				if !errors.As(err, &te) || !strings.Contains(err.Error(), "Invalid arguments for tool getPetById") {
					t.Errorf("%v: err = %v, want invalid arguments", args, err)
				}
			}
			if got := api.requests(); len(got) != 0 {
				t.Fatalf("the API received %+v for refused arguments", got)
			}
		})
		t.Run("dot segments", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			for _, name := range []string{"..", ".", ""} {
				_, err := c.CallTool("getUserByName", map[string]any{"username": name})
				var te *sake.ToolError
				if !errors.As(err, &te) || !strings.Contains(err.Error(), "the path parameter username cannot be") {
					t.Errorf("%q: err = %v, want the path parameter refused", name, err)
				}
			}
			if got := api.requests(); len(got) != 0 {
				t.Fatalf("the API received %+v", got)
			}
		})
		t.Run("unknown operation", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			_, err := c.CallTool("getPetByName", map[string]any{"name": "Rex"})
			var e *sake.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want a protocol error", err)
			}
			if got := api.requests(); len(got) != 0 {
				t.Fatalf("the API received %+v", got)
			}
		})
		t.Run("not found", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			_, err := c.CallTool("getPetById", map[string]any{"petId": 8})
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "HTTP 404 Not Found") || !strings.Contains(err.Error(), "Pet not found") {
				t.Fatalf("err = %v, want a tool error with the status and the body", err)
			}
		})
		t.Run("upstream 500", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts)
			_, err := c.CallTool("placeOrder", map[string]any{"petId": 7, "quantity": 1})
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "HTTP 500 Internal Server Error") || !strings.Contains(err.Error(), "the order book is closed") {
				t.Fatalf("err = %v, want a tool error naming the status", err)
			}
			if len(err.Error()) > openapi.MaxErrorBodyBytes+200 {
				t.Errorf("the error quotes %d bytes of the body, more than MaxErrorBodyBytes", len(err.Error()))
			}
			if got := api.last(t); got.Body != `{"petId":7,"quantity":1}` {
				t.Errorf("body = %s", got.Body)
			}
		})
		t.Run("oversize body", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts, openapi.MaxResponseBytes(1000))
			_, err := c.CallTool("getInventory", nil)
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "over 1000 bytes") {
				t.Fatalf("err = %v, want a tool error naming the bound", err)
			}
			// Within the bound, the same call succeeds.
			c2 := api.connect(t, opts)
			if res, err := c2.CallTool("getInventory", nil); err != nil || !strings.Contains(res.Text(), "available") {
				t.Fatalf("getInventory = %v, %v", res, err)
			}
		})
		t.Run("resource not found", func(t *testing.T) {
			api := newPetAPI(t)
			c := api.connect(t, opts, openapi.Routes(openapi.RouteMap{Methods: []string{"GET"}, Kind: openapi.ResourceTemplate}))
			_, err := c.ReadResource("api://getPetById/8")
			if err == nil || !strings.Contains(err.Error(), "404") {
				t.Fatalf("err = %v, want the status", err)
			}
		})
	})
}

func TestWithoutOutputSchemasAndURIScheme(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		api := newPetAPI(t)
		c := api.connect(t, opts, openapi.WithoutOutputSchemas(), openapi.URIScheme("petstore"),
			openapi.Routes(openapi.RouteMap{Pattern: regexp.MustCompile(`^/store/order/`), Methods: []string{"GET"}, Kind: openapi.ResourceTemplate}))
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			if len(tl.OutputSchema) != 0 {
				t.Errorf("%s has an output schema", tl.Name)
			}
		}
		res, err := c.CallTool("getPetById", map[string]any{"petId": 7})
		if err != nil || res.StructuredContent != nil || !strings.Contains(res.Text(), `"Rex"`) {
			t.Fatalf("getPetById = %+v, %v; want text only", res, err)
		}
		if _, err := c.ReadResource("petstore://getOrderById/5"); err != nil {
			t.Fatal(err)
		}
	})
}
