package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
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

// With -http, the document is served over Streamable HTTP until the
// context ends.
func TestOpenAPIServesHTTP(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: pw, getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"openapi", "-http", "127.0.0.1:0", "../../sake/openapi/testdata/petstore-3.0.yaml"}, e)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no address announced: %v", err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.Fields(strings.TrimPrefix(line, "sake openapi: serving "))[0]
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	c, err := client.Connect(ctx, client.HTTP(url, hc))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 3 {
		t.Fatalf("tools = %v, %v", tools, err)
	}
	c.Close()
	cancel()
	if got := <-code; got != exitOK {
		t.Fatalf("exit %d after the context ended", got)
	}
}
