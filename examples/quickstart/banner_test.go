package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
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
