package openapi_test

import (
	"testing"

	"github.com/sakemcp/sake-go/sake/openapi"
)

// FuzzNew: no document makes New panic; it returns a server or an error.
func FuzzNew(f *testing.F) {
	f.Add([]byte(collisions))
	f.Add(readSpec(f, "petstore-3.0.yaml"))
	f.Add([]byte(`{"openapi":"3.1.0","info":{"title":"x","version":"1"},"servers":[{"url":"http://x"}],"paths":{"/a/{b}":{"get":{"parameters":[{"$ref":"#/nope"}],"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}},"components":{"schemas":{"A":{"allOf":[{"$ref":"#/components/schemas/A"}]}}}}`))
	f.Fuzz(func(t *testing.T, spec []byte) {
		_, _ = openapi.New(spec, openapi.BaseURL("http://api.test"))
	})
}
