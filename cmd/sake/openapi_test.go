package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A tools/call sent over stdio reaches the API the document describes,
// with the -header flags (their variables expanded).
func TestOpenAPIServesStdio(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got *http.Request
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Clone(r.Context())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":7,"name":"Rex"}`)
	}))
	t.Cleanup(api.Close)
	spec, err := os.ReadFile("../../sake/openapi/testdata/petstore-3.0.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "petstore.yaml")
	if err := os.WriteFile(path, spec, 0o600); err != nil {
		t.Fatal(err)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"showPetById","arguments":{"petId":"7"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	r := sakeRun(t, call, map[string]string{"API_KEY": "s3cret"},
		"openapi", "-base-url", api.URL+"/v1", "-header", "X-Api-Key: $API_KEY", path)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var resp struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &resp); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if resp.Result.IsError || resp.Result.StructuredContent["name"] != "Rex" {
		t.Fatalf("result = %s", r.stdout)
	}
	mu.Lock()
	defer mu.Unlock()
	if got == nil || got.URL.Path != "/v1/pets/7" || got.Header.Get("X-Api-Key") != "s3cret" {
		t.Fatalf("the API received %+v", got)
	}
}

func TestOpenAPIRefusesBadCommandLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"openapi"}, exitUsage, "name one OpenAPI document"},
		{[]string{"openapi", "-header", "no colon", "x.yaml"}, exitUsage, "is not Name: value"},
		{[]string{"openapi", "/no/such/file.yaml"}, exitFail, "no such file"},
		{[]string{"openapi", "-base-url", "ftp://x", "../../sake/openapi/testdata/petstore-3.0.yaml"}, exitFail, "not http or https"},
	} {
		r := sakeRun(t, "", nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}
