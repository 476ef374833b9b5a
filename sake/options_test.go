package sake_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type described struct{}

func (described) Declare(d *sake.Declarations) {
	d.Tool("Paint").Title("Painter").
		Annotations(sake.ToolAnnotations{Title: "Paint", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}).
		Icons(sake.Icon{Src: "https://example.com/brush.png", MIMEType: "image/png", Sizes: []string{"48x48"}}).
		Meta("com.example/team", "art")
	d.Resource("Palette", "paint://palette").Title("Palette").Size(42).
		Icons(sake.Icon{Src: "https://example.com/palette.svg"}).
		Annotations(sake.Annotations{Audience: []sake.Role{sake.RoleUser}}).
		Meta("com.example/kind", "colours")
	d.Prompt("Inspire").Title("Inspiration").Icons(sake.Icon{Src: "https://example.com/idea.png"}).Meta("com.example/mood", "bright")
}

func (described) Paint(ctx *sake.Context) (string, error) {
	info := ctx.Request().ClientInfo()
	if info == nil {
		return "unknown client", nil
	}
	return "painted for " + info.Name, nil
}
func (described) Palette(ctx *sake.Context) (string, error) { return "red green blue", nil }
func (described) Inspire(ctx *sake.Context) (string, error) { return "Paint the sea.", nil }

func ptr[T any](v T) *T { return &v }

func TestComponentMetadata(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, described{}, saketest.ClientInfo("easel", "2.0"))
	tools, err := c.ListTools()
	if err != nil || len(tools) != 1 {
		t.Fatal(tools, err)
	}
	tl := tools[0]
	if tl.Title != "Painter" || tl.Annotations.Title != "Paint" || *tl.Annotations.DestructiveHint || *tl.Annotations.OpenWorldHint ||
		len(tl.Icons) != 1 || tl.Icons[0].Sizes[0] != "48x48" || tl.Meta["com.example/team"] != "art" {
		t.Errorf("tool = %+v", tl)
	}
	res, err := c.ListResources()
	if err != nil || res[0].Title != "Palette" || *res[0].Size != 42 || res[0].Icons[0].Src == "" ||
		res[0].Annotations.Audience[0] != sake.RoleUser || res[0].Meta["com.example/kind"] != "colours" {
		t.Errorf("resource = %+v %v", res, err)
	}
	ps, err := c.ListPrompts()
	if err != nil || ps[0].Title != "Inspiration" || ps[0].Icons[0].Src == "" || ps[0].Meta["com.example/mood"] != "bright" {
		t.Errorf("prompt = %+v %v", ps, err)
	}
	if r, err := c.CallTool("paint", nil); err != nil || r.Text() != "painted for easel" {
		t.Errorf("client info = %v %v", r, err)
	}
}

func TestServerOptions(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(described{}, sake.Name("atelier", "3.1"), sake.Title("The Atelier"),
		sake.Instructions("Use paint for pictures."), sake.CacheHints(time.Minute, 5*time.Second, "private"),
		sake.WithoutServerInfoMeta())
	c := saketest.Connect(t, s)
	if info := c.Session(); info.Instructions != "Use paint for pictures." {
		t.Errorf("instructions = %q", info.Instructions)
	}
	raw, err := c.Request("tools/list", nil)
	if err != nil || !strings.Contains(string(raw), `"ttlMs":60000,"cacheScope":"private"`) || strings.Contains(string(raw), "serverInfo") {
		t.Errorf("tools/list = %s %v", raw, err)
	}
	raw, err = c.Request("resources/read", map[string]any{"uri": "paint://palette"})
	if err != nil || !strings.Contains(string(raw), `"ttlMs":5000`) {
		t.Errorf("resources/read = %s %v", raw, err)
	}
	legacy := saketest.Connect(t, s, saketest.Legacy())
	if legacy.Session().ServerInfo.Name != "atelier" || legacy.Session().ServerInfo.Title != "The Atelier" {
		t.Errorf("serverInfo = %+v", legacy.Session().ServerInfo)
	}
}

func TestServerWideRequirements(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(described{}, sake.RequireScopes("studio"), sake.RequireAuthentication([]string{"urn:mfa"}, 0))
	var se *protocol.InsufficientScopeError
	if _, err := saketest.Connect(t, s, saketest.Scopes()).CallTool("paint", nil); !errors.As(err, &se) || se.Scopes[0] != "studio" {
		t.Errorf("default scopes: %v", err)
	}
	var ae *protocol.InsufficientAuthenticationError
	if _, err := saketest.Connect(t, s, saketest.Scopes("studio")).CallTool("paint", nil); !errors.As(err, &ae) || ae.MaxAge != nil {
		t.Errorf("default authentication: %v", err)
	}
	if _, err := saketest.Connect(t, s, saketest.Scopes("studio"), saketest.ACR("urn:mfa")).ReadResource("paint://palette"); err != nil {
		t.Errorf("meeting the defaults: %v", err)
	}
}

type linker struct{}

func (linker) Connect(ctx *sake.Context) (string, error) {
	action, err := ctx.ElicitURL("oauth", "Connect your account", "https://example.com/connect")
	if err != nil {
		return "", err
	}
	return "user said " + string(action), nil
}

func TestElicitURL(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, linker{}, era, saketest.OnInput(func(p protocol.ElicitRequest) protocol.ElicitResult {
			if p.Mode != "url" || p.URL != "https://example.com/connect" {
				return saketest.Decline()
			}
			return protocol.ElicitResult{Action: sake.Accept}
		}))
		res, err := c.CallTool("connect", nil)
		if err != nil || res.Text() != "user said accept" {
			t.Fatalf("url elicitation = %v %v", res, err)
		}
		// A client that declared form mode only cannot be asked to open a URL.
		formOnly := saketest.Connect(t, linker{}, era, saketest.Capabilities(protocol.ClientCapabilities{Elicitation: &protocol.ElicitationCapability{}}))
		var e *sake.Error
		if _, err := formOnly.CallTool("connect", nil); !errors.As(err, &e) {
			t.Errorf("URL elicitation without the url capability: %v", err)
		}
	})
}

func TestContentJSONRoundTrip(t *testing.T) {
	t.Parallel()
	blocks := []sake.Content{
		&sake.TextContent{Text: "t", Annotations: &sake.Annotations{Priority: ptr(0.5)}, Meta: sake.Meta{"k": "v"}},
		sake.Image([]byte{1}, "image/png"), sake.Audio([]byte{2}, "audio/wav"),
		&sake.ResourceLink{URI: "a://b", Name: "b"},
		&sake.EmbeddedResource{Resource: sake.ResourceContents{URI: "a://c", Text: "c"}},
	}
	for _, b := range blocks {
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		back, err := protocol.DecodeContent(raw)
		if err != nil || back.ContentType() != b.ContentType() {
			t.Errorf("%s: %s -> %v, %v", b.ContentType(), raw, back, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(raw) {
			t.Errorf("round trip changed %s into %s", raw, again)
		}
	}
	if _, err := protocol.DecodeContent([]byte(`{"type":"video"}`)); err == nil {
		t.Error("an unknown content type was accepted")
	}
	var rc sake.ResourceContents
	if err := json.Unmarshal([]byte(`{"uri":"x://y"}`), &rc); err == nil {
		t.Error("resource contents without text or blob were accepted")
	}
}

func TestHandleWithoutInbound(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(described{})
	r := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"paint",`+modernMeta+`}}`), nil)
	if r.ErrorCode != 0 || !strings.Contains(string(r.Body), "unknown client") {
		t.Errorf("reply = %s", r.Body)
	}
}
