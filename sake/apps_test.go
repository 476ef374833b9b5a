package sake_test

import (
	"encoding/json"
	"errors"
	"html/template"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

const boardHTML = `<!DOCTYPE html><html><head><title>Board</title></head><body><ul id="items"></ul></body></html>`

// board is a server with a view, a tool that shows it, and an app-only
// tool its buttons call.
type board struct {
	mu    sync.Mutex
	items []string
}

type addItem struct {
	Text string `json:"text"`
}

type boardState struct {
	Items []string `json:"items"`
}

func (b *board) Declare(d *sake.Declarations) {
	d.View(sake.NewView("ui://board/main", boardHTML).
		Title("Board").
		CSP(sake.CSP{
			ConnectDomains:  []string{"https://api.example.com", "wss://live.example.com:8443"},
			ResourceDomains: []string{"https://*.cdn.example.com"},
		}).
		Permissions(sake.PermissionClipboardWrite).
		Domain("board.example-host.com").
		PrefersBorder(true))
	d.Tool("ShowBoard").Description("Shows the board").View("ui://board/main")
	d.Tool("AddItem").Description("Adds an item (from the board's form)").View("ui://board/main").Visibility(sake.VisibleToApp)
	d.Tool("Count").Description("Counts the items").Visibility(sake.VisibleToModel)
}

func (b *board) state() boardState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return boardState{Items: append([]string{}, b.items...)}
}

func (b *board) ShowBoard(ctx *sake.Context) (boardState, error) { return b.state(), nil }

func (b *board) AddItem(ctx *sake.Context, a addItem) (boardState, error) {
	b.mu.Lock()
	b.items = append(b.items, a.Text)
	b.mu.Unlock()
	return b.state(), nil
}

func (b *board) Count(ctx *sake.Context) (string, error) {
	if ctx.SupportsApps() {
		return "apps", nil
	}
	return "text", nil
}

func listedTools(t *testing.T, c *saketest.Client) []string {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestAppsViewAndVisibility(t *testing.T) {
	eras(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(&board{})

		plain := saketest.Connect(t, srv, era)
		if got := strings.Join(listedTools(t, plain), ","); got != "count,show_board" {
			t.Errorf("tools for a client without apps = %s, want count,show_board (add_item is app-only)", got)
		}
		if _, err := plain.CallAppTool("add_item", addItem{Text: "x"}); err == nil || !strings.Contains(err.Error(), "saketest.UI()") {
			t.Errorf("CallAppTool without UI: err = %v, want a hint to connect with UI", err)
		}
		if res, err := plain.CallTool("count", nil); err != nil || res.Text() != "text" {
			t.Errorf("count without apps = %v, %v; want text", res, err)
		}
		if strings.Contains(string(plain.Session().Capabilities), "extensions\":{\""+protocol.AppsExtension) == false {
			t.Errorf("capabilities %s do not declare %s", plain.Session().Capabilities, protocol.AppsExtension)
		}

		app := saketest.Connect(t, srv, era, saketest.UI())
		if got := strings.Join(listedTools(t, app), ","); got != "add_item,count,show_board" {
			t.Errorf("tools for a client with apps = %s, want add_item,count,show_board", got)
		}
		if res, err := app.CallTool("count", nil); err != nil || res.Text() != "apps" {
			t.Errorf("count with apps = %v, %v; want apps", res, err)
		}

		v, err := app.View("show_board")
		if err != nil {
			t.Fatal(err)
		}
		if v.URI != "ui://board/main" || v.MIMEType != protocol.AppMIMEType || v.HTML != boardHTML {
			t.Errorf("view = %s %s %q", v.URI, v.MIMEType, v.HTML)
		}
		want := protocol.ViewMeta{
			CSP:           &sake.CSP{ConnectDomains: []string{"https://api.example.com", "wss://live.example.com:8443"}, ResourceDomains: []string{"https://*.cdn.example.com"}},
			Permissions:   map[sake.Permission]struct{}{sake.PermissionClipboardWrite: {}},
			Domain:        "board.example-host.com",
			PrefersBorder: ptrTo(true),
		}
		gotJSON, _ := json.Marshal(v.Meta)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("view _meta.ui = %s, want %s", gotJSON, wantJSON)
		}
		if v.Listed == nil || v.Listed.MIMEType != protocol.AppMIMEType || v.Listed.Title != "Board" {
			t.Errorf("view listed as %+v", v.Listed)
		}
		if ui := v.Tool.UI(); ui == nil || ui.ResourceURI != "ui://board/main" || len(ui.Visibility) != 0 {
			t.Errorf("show_board _meta.ui = %+v", ui)
		}

		res, err := app.CallAppTool("add_item", addItem{Text: "milk"})
		if err != nil {
			t.Fatal(err)
		}
		var st boardState
		if err := res.DecodeStructured(&st); err != nil || len(st.Items) == 0 || st.Items[len(st.Items)-1] != "milk" {
			t.Errorf("add_item structuredContent = %v (%v)", res.StructuredContent, err)
		}
		if _, err := app.CallAppTool("count", nil); err == nil || !strings.Contains(err.Error(), "not visible to apps") {
			t.Errorf("CallAppTool(count) err = %v, want not visible to apps", err)
		}
		// Visibility is not access control: any client may call any tool.
		if _, err := plain.CallTool("add_item", addItem{Text: "eggs"}); err != nil {
			t.Errorf("a plain client calling add_item: %v", err)
		}
	})
}

func TestAppsViewSources(t *testing.T) {
	t.Parallel()
	tmpl := template.Must(template.New("v").Parse(`<!doctype html><html><body data-api="{{.}}"></body></html>`))
	fsys := fstest.MapFS{"views/list.html": {Data: []byte("\uFEFF<!-- list -->\n<!DOCTYPE html>\n<html lang=en><body>list</body></html>")}}
	srv := sake.MustNew(nil)
	for _, v := range []*sake.ViewDef{
		sake.NewViewTemplate("ui://t/tmpl", tmpl, "https://api.example.com/?a=1&b=2"),
		sake.NewViewFile("ui://t/file", fsys, "views/list.html"),
	} {
		if err := srv.AddView(v); err != nil {
			t.Fatal(err)
		}
	}
	c := saketest.Connect(t, srv, saketest.UI())
	got, err := c.ReadResource("ui://t/tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if want := `<!doctype html><html><body data-api="https://api.example.com/?a=1&amp;b=2"></body></html>`; got[0].Text != want || got[0].MIMEType != protocol.AppMIMEType {
		t.Errorf("template view = %s %q, want %q", got[0].MIMEType, got[0].Text, want)
	}
	if _, ok := got[0].Meta["ui"]; ok {
		t.Errorf("a view without settings has _meta.ui %v", got[0].Meta)
	}
	got, err = c.ReadResource("ui://t/file")
	if err != nil || !strings.Contains(got[0].Text, "<body>list</body>") {
		t.Errorf("file view = %v, %v", got, err)
	}
}

// ViewDef.CSP replaces what an earlier call set, and keeps its own copy
// of the lists.
func TestAppsCSPReplaces(t *testing.T) {
	t.Parallel()
	connect := []string{"https://api.example.com"}
	v := sake.NewView("ui://t/csp", boardHTML).
		CSP(sake.CSP{FrameDomains: []string{"https://old.example.com"}}).
		CSP(sake.CSP{ConnectDomains: connect})
	connect[0] = "https://changed.example.com"
	srv := sake.MustNew(nil)
	if err := srv.AddView(v); err != nil {
		t.Fatal(err)
	}
	got, err := saketest.Connect(t, srv, saketest.UI()).ReadResource("ui://t/csp")
	if err != nil {
		t.Fatal(err)
	}
	if meta, _ := json.Marshal(got[0].Meta["ui"]); string(meta) != `{"csp":{"connectDomains":["https://api.example.com"]}}` {
		t.Errorf("_meta.ui = %s, want the later CSP alone, as given", meta)
	}
}

func TestAppsConstructionErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		view *sake.ViewDef
		want string
	}{
		{"not ui scheme", sake.NewView("https://example.com/v", boardHTML), "not a ui:// URI"},
		{"bare scheme", sake.NewView("ui://", boardHTML), "not a ui:// URI"},
		{"no doctype", sake.NewView("ui://v", "<html><body></body></html>"), "<!DOCTYPE html>"},
		{"html4 doctype", sake.NewView("ui://v", `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN"><html></html>`), ""},
		{"doctype only", sake.NewView("ui://v", "<!DOCTYPE html>"), "HTML5"},
		{"fragment", sake.NewView("ui://v", "<div>hi</div>"), "HTML5"},
		{"not utf-8", sake.NewView("ui://v", "<!DOCTYPE html><html>\xff</html>"), "UTF-8"},
		{"missing file", sake.NewViewFile("ui://v", fstest.MapFS{}, "v.html"), "reading the document"},
		{"path", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ConnectDomains: []string{"https://api.example.com/v1"}}), "connectDomains"},
		{"trailing slash", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ConnectDomains: []string{"https://api.example.com/"}}), "origin alone"},
		{"credentials", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ResourceDomains: []string{"https://u:p@cdn.example.com"}}), "credentials"},
		{"query", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{FrameDomains: []string{"https://a.example.com?x=1"}}), "origin alone"},
		{"keyword", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ConnectDomains: []string{"'self'"}}), "scheme"},
		{"wildcard all", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ConnectDomains: []string{"*"}}), "scheme"},
		{"data scheme", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ResourceDomains: []string{"data:"}}), ""},
		{"javascript", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{BaseURIDomains: []string{"javascript:alert(1)"}}), ""},
		{"ftp", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ConnectDomains: []string{"ftp://files.example.com"}}), "scheme must be"},
		{"injection", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ConnectDomains: []string{"https://a.example.com;script-src"}}), ""},
		{"inner wildcard", sake.NewView("ui://v", boardHTML).CSP(sake.CSP{ConnectDomains: []string{"https://a.*.example.com"}}), "not a hostname"},
		{"permission", sake.NewView("ui://v", boardHTML).Permissions("usb"), "permission"},
		{"domain", sake.NewView("ui://v", boardHTML).Domain("a b"), "domain"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := sake.MustNew(nil).AddView(tc.view)
			if err == nil {
				t.Fatalf("AddView accepted %s", tc.name)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	ok := sake.NewView("ui://v", boardHTML).CSP(sake.CSP{
		ConnectDomains: []string{"http://localhost:3000", "https://*.example.com", "wss://rt.example.com:8443"},
		FrameDomains:   []string{"https://www.youtube.com"},
		BaseURIDomains: []string{"https://cdn.example.com"},
	})
	if err := sake.MustNew(nil).AddView(ok); err != nil {
		t.Errorf("valid view refused: %v", err)
	}
}

type viewlessTool struct{}

func (viewlessTool) Declare(d *sake.Declarations) {
	d.Tool("Show").View("ui://nowhere")
	d.Tool("Other").Visibility()
}

func (viewlessTool) Show(ctx *sake.Context) (string, error)  { return "", nil }
func (viewlessTool) Other(ctx *sake.Context) (string, error) { return "", nil }

type badViewDecl struct{}

func (badViewDecl) Declare(d *sake.Declarations) {
	d.View(sake.NewView("http://x", boardHTML))
	d.Resource("Plain", "ui://plain")
	d.Tool("Show").View("ui://plain")
}

func (badViewDecl) Plain(ctx *sake.Context) (string, error) { return boardHTML, nil }
func (badViewDecl) Show(ctx *sake.Context) (string, error)  { return "", nil }

func TestAppsToolConstructionErrors(t *testing.T) {
	t.Parallel()
	_, err := sake.New(viewlessTool{})
	var ce *sake.ConstructionError
	if !errors.As(err, &ce) {
		t.Fatalf("New = %v, want a ConstructionError", err)
	}
	msg := err.Error()
	for _, want := range []string{"visibility is empty", "names view ui://nowhere, which is not declared"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	_, err = sake.New(badViewDecl{})
	if err == nil || !strings.Contains(err.Error(), "view http://x") || !strings.Contains(err.Error(), "names view ui://plain") {
		t.Errorf("New(badViewDecl) = %v, want the bad URI and the tool naming a resource that is not a view", err)
	}

	srv := sake.MustNew(&board{})
	if err := srv.AddTool(sake.NewTool("dangling", func(ctx *sake.Context) (string, error) { return "", nil }).View("ui://missing")); err == nil {
		t.Error("AddTool with an undeclared view succeeded")
	}
	if err := srv.AddTool(sake.NewTool("weird", func(ctx *sake.Context) (string, error) { return "", nil }).Visibility("user")); err == nil || !strings.Contains(err.Error(), `"user"`) {
		t.Errorf("AddTool with visibility user = %v", err)
	}
	c := saketest.Connect(t, srv, saketest.UI())
	if got := strings.Join(listedTools(t, c), ","); got != "add_item,count,show_board" {
		t.Errorf("a refused AddTool changed the tools: %s", got)
	}
}

func TestAppsWithoutViewsDeclaresNothing(t *testing.T) {
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, newNotes(), era, saketest.UI())
		if strings.Contains(string(c.Session().Capabilities), protocol.AppsExtension) {
			t.Errorf("a server without views declares %s: %s", protocol.AppsExtension, c.Session().Capabilities)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }
