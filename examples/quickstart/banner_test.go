package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// The request the banner offers works when pasted.
func TestBannerRequestWorks(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	banner(&b)
	text := b.String()
	for _, want := range []string{"stdio", "Ctrl-D", "-http", tryRequest} {
		if !strings.Contains(text, want) {
			t.Errorf("the banner does not mention %q:\n%s", want, text)
		}
	}
	var out bytes.Buffer
	srv := sake.MustNew(&Quickstart{})
	if err := stdio.Serve(context.Background(), srv, strings.NewReader(tryRequest+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Result.Content) == 0 || r.Result.Content[0].Text != "Hello, Rui!" {
		t.Errorf("the pasted request answered %s (%v)", out.String(), err)
	}
}

func TestAllowOriginFlag(t *testing.T) {
	t.Parallel()
	var o originList
	_ = o.Set("https://a.test, https://b.test")
	_ = o.Set("https://c.test")
	if strings.Join(o, " ") != "https://a.test https://b.test https://c.test" {
		t.Errorf("origins = %v", o)
	}
}

// Over HTTP the quickstart answers at /mcp.
func TestServeHTTP(t *testing.T) {
	t.Parallel()
	srv, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	h, closeHandler := handler(srv, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer closeHandler()
	c, err := client.Connect(context.Background(), client.HTTP(ts.URL+"/mcp", ts.Client()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "greet", map[string]any{"name": "Ana"})
	if err != nil || res.Text() != "Hello, Ana!" {
		t.Errorf("greet over HTTP = %v, %v", res, err)
	}
}
