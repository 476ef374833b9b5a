package openapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/openapi"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// collisions has an id in the path, the query, a header and the body,
// a body made of allOf parts with references, an OpenAPI 3.0 nullable
// property, and an operation without an operationId.
const collisions = `
openapi: 3.0.3
info: {title: Widgets, version: "2.1"}
servers: [{url: "https://{region}.widgets.test/v2", variables: {region: {default: eu}}}]
paths:
  /widgets/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
    patch:
      operationId: "widgets.update (v2)"
      tags: [widgets, write]
      parameters:
        - {name: id, in: query, schema: {type: integer}}
        - {name: id, in: header, schema: {type: string}}
        - {name: Accept, in: header, schema: {type: string}}
        - {name: session, in: cookie, schema: {type: string}}
        - {name: fields, in: query, style: form, explode: false, schema: {type: array, items: {type: string}}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              allOf:
                - $ref: '#/components/schemas/Named'
                - type: object
                  required: [id]
                  properties:
                    id: {type: integer, minimum: 0, exclusiveMinimum: true}
                    note: {type: string, nullable: true}
      responses:
        "200":
          description: the widget
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Widget'}
  /widgets/{id}/touch:
    post:
      operationId: touch
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, properties: {note: {type: string}}}
      responses:
        "204": {description: touched}
  /widgets/{id}/rename:
    post:
      operationId: rename
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/xml:
            schema: {type: object, properties: {name: {type: string}}}
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string}
                tags: {type: array, items: {type: string}}
      responses:
        "204": {description: renamed}
  /widgets/{id}/parts/{part}:
    get:
      operationId: getPart
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "204": {description: the part exists}
  /widgets:
    get:
      tags: [widgets]
      responses:
        "200":
          description: every widget
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Widget'}}
components:
  schemas:
    Named:
      type: object
      required: [name]
      properties:
        name: {type: string, pattern: '^(?!admin).*$'}
        parent: {$ref: '#/components/schemas/Widget'}
    Widget:
      allOf:
        - $ref: '#/components/schemas/Named'
        - type: object
          properties:
            id: {type: integer}
`

func TestArgumentsFromEveryPlace(t *testing.T) {
	api := newPetAPI(t) // answers 418 to every widget request: the request is what is checked
	hc := api.srv.Client()
	srv, err := openapi.New([]byte(collisions), openapi.BaseURL(api.srv.URL+"/v2"), openapi.HTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, srv, opts...)
		t.Cleanup(hc.CloseIdleConnections)
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		var update *protocol.ToolInfo
		var names []string
		for i := range tools {
			names = append(names, tools[i].Name)
			if tools[i].Name == "widgets.update_v2" {
				update = &tools[i]
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"getPart", "get_widgets", "rename", "touch", "widgets.update_v2"}) || update == nil {
			t.Fatalf("tools = %v, want the sanitised operationId and the method+path fallback", names)
		}
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
			Defs       map[string]any            `json:"$defs"`
		}
		if err := json.Unmarshal(update.InputSchema, &in); err != nil {
			t.Fatal(err)
		}
		args := slices.Sorted(func(yield func(string) bool) {
			for k := range in.Properties {
				if !yield(k) {
					return
				}
			}
		})
		want := []string{"fields", "id", "id__body", "id__header", "id__query", "name", "note", "parent"}
		if !slices.Equal(args, want) {
			t.Fatalf("arguments = %v, want %v (Accept and cookies left out)", args, want)
		}
		if !slices.Equal(in.Required, []string{"id", "id__body", "name"}) {
			t.Errorf("required = %v", in.Required)
		}
		if typ := in.Properties["note"]["type"]; !slices.Equal(toStrings(typ), []string{"string", "null"}) {
			t.Errorf("nullable note has type %v", typ)
		}
		if in.Properties["id__body"]["exclusiveMinimum"] != 0.0 {
			t.Errorf("id__body = %v, want the 2020-12 exclusiveMinimum", in.Properties["id__body"])
		}
		if _, ok := in.Properties["name"]["pattern"]; ok {
			t.Errorf("name keeps a pattern Go cannot compile: %v", in.Properties["name"])
		}
		if _, ok := in.Defs["Widget"]; !ok {
			t.Errorf("$defs = %v, want the Widget that parent refers to", in.Defs)
		}

		_, err = c.CallTool("widgets.update_v2", map[string]any{
			"id": "w 1", "id__query": 3, "id__header": "h", "id__body": 5, "name": "cog",
			"note": nil, "fields": []string{"a", "b"},
		})
		if err == nil || !strings.Contains(err.Error(), "HTTP 418") {
			t.Fatalf("err = %v, want the API's status", err)
		}
		var got *seen
		for _, r := range api.requests() {
			if r.Method == "PATCH" && r.Header.Get("id") == "h" {
				got = &r
			}
		}
		if got == nil {
			t.Fatalf("no PATCH reached the API: %+v", api.requests())
		}
		q, _ := url.ParseQuery(got.RawQuery)
		if got.Path != "/v2/widgets/w%201" || q.Get("id") != "3" || q.Get("fields") != "a,b" {
			t.Errorf("request = %+v", got)
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(got.Body), &body); err != nil || body["id"] != 5.0 || body["name"] != "cog" || body["note"] != nil || len(body) != 3 {
			t.Errorf("body = %s", got.Body)
		}
	})
}

// A variable of the path template that the document does not declare
// is a required argument all the same.
func TestUndeclaredPathParameter(t *testing.T) {
	api := newPetAPI(t)
	hc := api.srv.Client()
	srv, err := openapi.New([]byte(collisions), openapi.BaseURL(api.srv.URL+"/v2"), openapi.HTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	t.Cleanup(hc.CloseIdleConnections)
	_, err = c.CallTool("getPart", map[string]any{"id": "w1"})
	if err == nil || !strings.Contains(err.Error(), "Invalid arguments") {
		t.Fatalf("err = %v, want part required", err)
	}
	_, err = c.CallTool("getPart", map[string]any{"id": "w1", "part": "p/2"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 418") {
		t.Fatalf("err = %v, want the API's answer", err)
	}
	if got := api.last(t); got.Path != "/v2/widgets/w1/parts/p%2F2" {
		t.Fatalf("path = %s", got.Path)
	}
}

// A required body whose properties are all left out is sent as {}.
func TestRequiredEmptyBody(t *testing.T) {
	api := newPetAPI(t)
	hc := api.srv.Client()
	srv, err := openapi.New([]byte(collisions), openapi.BaseURL(api.srv.URL), openapi.HTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	t.Cleanup(hc.CloseIdleConnections)
	_, _ = c.CallTool("touch", map[string]any{"id": "w1"})
	if got := api.last(t); got.Method != "POST" || got.Path != "/widgets/w1/touch" || got.Body != "{}" || got.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request = %+v", got)
	}
}

// A form body's properties are arguments, sent form-encoded.
func TestFormBody(t *testing.T) {
	api := newPetAPI(t)
	hc := api.srv.Client()
	srv, err := openapi.New([]byte(collisions), openapi.BaseURL(api.srv.URL), openapi.HTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	t.Cleanup(hc.CloseIdleConnections)
	if _, err := c.CallTool("rename", map[string]any{"id": "w1"}); err == nil || !strings.Contains(err.Error(), "Invalid arguments") {
		t.Fatalf("err = %v, want name required", err)
	}
	_, _ = c.CallTool("rename", map[string]any{"id": "w1", "name": "cog & co", "tags": []string{"a", "b"}})
	got := api.last(t)
	if got.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || got.Body != "name=cog+%26+co&tags=a&tags=b" {
		t.Fatalf("request = %+v", got)
	}
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func TestDocumentErrors(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		opts       []openapi.Option
		want       string
	}{
		{"not a document", "{", nil, "cannot be read"},
		{"swagger 2", `{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {}}`, nil, "Swagger 2.0"},
		{"no server", `{"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "paths": {}}`, nil, "BaseURL"},
		{"relative server", `{"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "servers": [{"url": "/v1"}], "paths": {}}`, nil, "not absolute"},
		{"post as resource", collisions, []openapi.Option{openapi.Routes(openapi.RouteMap{Kind: openapi.Resource})}, "only a GET operation"},
		{"bad name", collisions, []openapi.Option{openapi.Names(map[string]string{"get_widgets": "list widgets"})}, "list widgets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openapi.New([]byte(tc.spec), tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestNamesAndTags(t *testing.T) {
	srv, err := openapi.New([]byte(collisions), openapi.Names(map[string]string{"get_widgets": "list_widgets"}),
		openapi.Routes(openapi.RouteMap{Tags: []string{"write"}, Kind: openapi.Tool, ComponentTags: []string{"mutating"}}))
	if err != nil {
		t.Fatal(err)
	}
	srv.Disable(sake.Components{Tags: []string{"mutating"}})
	c := saketest.Connect(t, srv)
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"getPart", "list_widgets", "rename", "touch"}) {
		t.Fatalf("tools = %v, want getPart, list_widgets, rename and touch (the mutating one disabled by its tag)", names)
	}
}

// The parser reports a broken reference to the Logger, never to standard
// output, which a server on stdio keeps for protocol messages.
func TestNothingWrittenToStdout(t *testing.T) {
	const broken = `{"openapi":"3.1.0","info":{"title":"x","version":"1"},"servers":[{"url":"http://x"}],
"paths":{"/a":{"get":{"operationId":"a","parameters":[{"$ref":"#/components/parameters/missing"}],"responses":{"200":{"description":"ok"}}}}}}`
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	var logged strings.Builder
	_, newErr := openapi.New([]byte(broken), openapi.Logger(slog.New(slog.NewTextHandler(&logged, nil))))
	os.Stdout = stdout
	w.Close()
	written, _ := io.ReadAll(r)
	if len(written) > 0 {
		t.Fatalf("New wrote %q to standard output", written)
	}
	if !strings.Contains(logged.String(), "missing") {
		t.Errorf("the Logger got %q, want the broken reference (New: %v)", logged.String(), newErr)
	}
}
