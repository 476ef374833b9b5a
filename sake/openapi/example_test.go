package openapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/openapi"
)

// A two-operation API: its GET with a path parameter becomes a resource
// template by a route map, its other operation a tool.
func ExampleNew() {
	const spec = `
openapi: 3.1.0
info: {title: Greetings, version: "1.0"}
paths:
  /greetings/{lang}:
    get:
      operationId: getGreeting
      parameters: [{name: lang, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: a greeting, content: {text/plain: {schema: {type: string}}}}
  /greet:
    post:
      operationId: greet
      summary: Greet someone by name
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [name], properties: {name: {type: string}}}
      responses:
        "200":
          description: the greeting
          content:
            application/json:
              schema: {type: object, properties: {text: {type: string}}}
`
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/greetings/fr":
			fmt.Fprint(w, "bonjour")
		case "/greet":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"text":"hello, Ada"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()

	srv, err := openapi.New([]byte(spec), openapi.BaseURL(api.URL), openapi.HTTPClient(api.Client()),
		openapi.Routes(openapi.RouteMap{Methods: []string{"GET"}, Pattern: regexp.MustCompile(`^/greetings/`), Kind: openapi.ResourceTemplate}))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(srv))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("greet:", res.Text())
	contents, err := c.ReadResource(ctx, "api://getGreeting/fr")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(contents[0].URI, "->", contents[0].Text)
	// Output:
	// greet: {"text":"hello, Ada"}
	// api://getGreeting/fr -> bonjour
}
