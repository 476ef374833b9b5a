package sake_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func connect(t *testing.T, s *sake.Server, opts ...saketest.Option) *saketest.Client {
	t.Helper()
	return saketest.Connect(t, s, opts...)
}

func TestResources(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, newNotes(), era)
		list, err := c.ListResources()
		if err != nil || len(list) != 1 || list[0].URI != "notes://readme" || list[0].Name != "readme" || list[0].MIMEType != "text/markdown" {
			t.Fatalf("resources = %+v, %v", list, err)
		}
		tmpls, err := c.ListResourceTemplates()
		if err != nil || len(tmpls) != 1 || tmpls[0].URITemplate != "notes://{id}" {
			t.Fatalf("templates = %+v, %v", tmpls, err)
		}
		got, err := c.ReadResource("notes://readme")
		if err != nil || len(got) != 1 || got[0].Text != "# Notes" || got[0].MIMEType != "text/markdown" || got[0].URI != "notes://readme" {
			t.Fatalf("readme = %+v, %v", got, err)
		}
		got, err = c.ReadResource("notes://1")
		if err != nil || got[0].Text != "buy milk" {
			t.Fatalf("notes://1 = %+v, %v", got, err)
		}
		_, err = c.ReadResource("notes://42")
		var e *sake.Error
		wantCode := sake.CodeInvalidParams
		if c.Session().Era == sake.EraLegacy {
			wantCode = sake.CodeResourceNotFound
		}
		if !errors.As(err, &e) || e.Code != wantCode || e.Data.(map[string]any)["uri"] != "notes://42" {
			t.Fatalf("missing note: %v", err)
		}
		_, err = c.ReadResource("other://1")
		if !errors.As(err, &e) || e.Code != wantCode {
			t.Fatalf("unknown scheme: %v", err)
		}
	})
}

func TestPrompts(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, newNotes(), era)
		ps, err := c.ListPrompts()
		if err != nil || len(ps) != 1 {
			t.Fatalf("prompts = %+v, %v", ps, err)
		}
		p := ps[0]
		if p.Name != "summarize" || p.Description != "Summarizes the notes." || len(p.Arguments) != 2 ||
			p.Arguments[0].Name != "style" || !p.Arguments[0].Required || p.Arguments[0].Description != "How to summarize" ||
			p.Arguments[1].Required {
			t.Fatalf("prompt = %+v", p)
		}
		res, err := c.GetPrompt("summarize", map[string]string{"style": "short"})
		if err != nil || len(res.Messages) != 1 || res.Messages[0].Role != sake.RoleUser || res.Text() != "Summarize the notes in short form." {
			t.Fatalf("get = %+v, %v", res, err)
		}
		var e *sake.Error
		for name, args := range map[string]map[string]string{
			"missing argument": {},
			"unknown argument": {"style": "short", "mood": "x"},
		} {
			if _, err := c.GetPrompt("summarize", args); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
				t.Errorf("%s: %v", name, err)
			}
		}
		if _, err := c.GetPrompt("nope", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("unknown prompt: %v", err)
		}
		if _, err := c.GetPrompt("summarize", map[string]string{"style": "x", "topic": "secret"}); !errors.As(err, &e) || e.Code != sake.CodeInternalError {
			t.Errorf("failing prompt: %v", err)
		}
	})
}

func TestCompletions(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		n := newNotes()
		n.items["12"], n.items["20"] = "a", "b"
		c := saketest.Connect(t, n, era)
		got, err := c.Complete(protocol.PromptRef("summarize"), "style", "s", nil)
		if err != nil || strings.Join(got.Values, ",") != "short" {
			t.Fatalf("enum completion = %+v, %v", got, err)
		}
		got, err = c.Complete(protocol.ResourceRef("notes://{id}"), "id", "1", nil)
		if err != nil || strings.Join(got.Values, ",") != "1,12" {
			t.Fatalf("template completion = %+v, %v", got, err)
		}
		got, err = c.Complete(protocol.PromptRef("summarize"), "topic", "", nil)
		if err != nil || len(got.Values) != 0 {
			t.Fatalf("no completer = %+v, %v", got, err)
		}
		var e *sake.Error
		for name, call := range map[string]func() error{
			"unknown prompt":   func() error { _, err := c.Complete(protocol.PromptRef("x"), "style", "", nil); return err },
			"unknown argument": func() error { _, err := c.Complete(protocol.PromptRef("summarize"), "x", "", nil); return err },
			"unknown template": func() error { _, err := c.Complete(protocol.ResourceRef("x://{y}"), "y", "", nil); return err },
			"unknown variable": func() error { _, err := c.Complete(protocol.ResourceRef("notes://{id}"), "x", "", nil); return err },
			"bad ref type": func() error {
				_, err := c.Complete(protocol.CompleteRef{Type: "ref/tool", Name: "x"}, "x", "", nil)
				return err
			},
		} {
			if err := call(); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
}

func TestCompletionIsCappedAt100(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(nil)
	err := s.AddPrompt(sake.NewPrompt("p", func(ctx *sake.Context, a struct {
		X string `json:"x"`
	}) (string, error) {
		return a.X, nil
	}).Complete("x", func(ctx *sake.Context, r sake.CompleteRequest) ([]string, error) {
		out := make([]string, 150)
		for i := range out {
			out[i] = "v"
		}
		return out, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := connect(t, s).Complete(protocol.PromptRef("p"), "x", "", nil)
	if err != nil || len(got.Values) != 100 || !got.HasMore || got.Total == nil || *got.Total != 150 {
		t.Fatalf("got %d values, hasMore %v, total %v, %v", len(got.Values), got.HasMore, got.Total, err)
	}
}

func TestContentTypesRoundTrip(t *testing.T) {
	t.Parallel()
	size := int64(42)
	s := sake.MustNew(nil)
	err := s.AddTool(sake.NewTool("all", func(ctx context.Context) ([]sake.Content, error) {
		return []sake.Content{
			sake.Text("t"),
			sake.Image([]byte("png"), "image/png"),
			sake.Audio([]byte("wav"), "audio/wav"),
			&sake.ResourceLink{URI: "a://b", Name: "b", MIMEType: "text/plain", Size: &size},
			&sake.EmbeddedResource{Resource: sake.ResourceContents{URI: "a://c", MIMEType: "text/plain", Text: "c"}},
			&sake.EmbeddedResource{Resource: sake.ResourceContents{URI: "a://d", Blob: []byte{0, 1}}},
		}, nil
	}).Description("every content type"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := connect(t, s).CallTool("all", nil)
	if err != nil || len(res.Content) != 6 {
		t.Fatalf("%+v, %v", res, err)
	}
	want := []string{"text", "image", "audio", "resource_link", "resource", "resource"}
	for i, c := range res.Content {
		if c.ContentType() != want[i] {
			t.Errorf("content[%d] = %s, want %s", i, c.ContentType(), want[i])
		}
	}
	if a := res.Content[2].(*sake.AudioContent); string(a.Data) != "wav" || a.MIMEType != "audio/wav" {
		t.Errorf("audio = %+v", a)
	}
	if l := res.Content[3].(*sake.ResourceLink); l.URI != "a://b" || *l.Size != 42 {
		t.Errorf("link = %+v", l)
	}
	if e := res.Content[5].(*sake.EmbeddedResource); string(e.Resource.Blob) != "\x00\x01" {
		t.Errorf("blob = %+v", e)
	}
}
