package openapi_test

import (
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/openapi"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// selfReferring has schemas made of allOf parts that refer to each
// other, as a request body and as a response.
const selfReferring = `{"openapi":"3.1.0","info":{"title":"x","version":"1"},"servers":[{"url":"http://x"}],
"paths":{"/a":{"post":{"operationId":"a",
  "requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}},
  "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}}},
"components":{"schemas":{
  "A":{"allOf":[{"$ref":"#/components/schemas/B"},{"$ref":"#/components/schemas/B"},{"$ref":"#/components/schemas/A"}]},
  "B":{"allOf":[{"$ref":"#/components/schemas/A"},{"$ref":"#/components/schemas/A"}]}}}}`

// Schemas whose allOf parts refer to each other without end are read in
// bounded time and without running out of stack, and refused with an
// error that says how to leave the operation out.
func TestSelfReferringSchemas(t *testing.T) {
	_, err := openapi.New([]byte(selfReferring))
	if err == nil || !strings.Contains(err.Error(), "infinite recursion") || !strings.Contains(err.Error(), "Exclude") {
		t.Fatalf("err = %v, want the recursion named and Exclude suggested", err)
	}
	srv, err := openapi.New([]byte(selfReferring), openapi.Routes(openapi.RouteMap{Kind: openapi.Exclude}))
	if err != nil {
		t.Fatal(err)
	}
	if tools, err := saketest.Connect(t, srv).ListTools(); err != nil || len(tools) != 0 {
		t.Fatalf("tools = %v, %v", tools, err)
	}
}

// FuzzNew: no document makes New panic; it returns a server or an error.
func FuzzNew(f *testing.F) {
	f.Add([]byte(collisions))
	f.Add(readSpec(f, "petstore-3.0.yaml"))
	f.Add([]byte(`{"openapi":"3.1.0","info":{"title":"x","version":"1"},"servers":[{"url":"http://x"}],"paths":{"/a/{b}":{"get":{"parameters":[{"$ref":"#/nope"}],"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}},"components":{"schemas":{"A":{"allOf":[{"$ref":"#/components/schemas/A"}]}}}}`))
	f.Add([]byte(selfReferring))
	f.Fuzz(func(t *testing.T, spec []byte) {
		_, _ = openapi.New(spec, openapi.BaseURL("http://api.test"))
	})
}
