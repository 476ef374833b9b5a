package main

import (
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

// The browser test renders the view in headless Chromium through a minimal
// host page (testdata/host.html) built on the official host bridge,
// AppBridge from @modelcontextprotocol/ext-apps. It needs Chromium
// (scripts/chromium.sh) and the bridge's bundle (scripts/ext-apps.sh).

//go:embed testdata/host.html
var hostPage []byte

// browserDeadline only keeps a broken browser from hanging the test run;
// nothing is measured against it.
const browserDeadline = 2 * time.Minute

func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("SAKE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("Chromium is not installed: run scripts/chromium.sh (or set SAKE_CHROMIUM) to run the browser test")
	return ""
}

func findBridge(t *testing.T) []byte {
	t.Helper()
	path := os.Getenv("SAKE_EXT_APPS_BUNDLE")
	if path == "" {
		root, err := filepath.Abs("../..")
		if err != nil {
			t.Fatal(err)
		}
		cache := os.Getenv("SAKE_CACHE")
		if cache == "" {
			cache = filepath.Join(root, ".cache")
		}
		path = filepath.Join(cache, "ext-apps", "app-bridge-2.0.4.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("the MCP Apps host bridge is not bundled at %s: run scripts/ext-apps.sh to run the browser test", path)
	}
	return b
}

// host serves the host page, the bridge and MCP endpoints on one origin.
func host(t *testing.T, bridge []byte, endpoints map[string]*sake.Server) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/host.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(hostPage)
	})
	mux.HandleFunc("/app-bridge.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write(bridge)
	})
	for path, srv := range endpoints {
		h := plug.New(srv)
		t.Cleanup(h.Close)
		mux.Handle(path, h)
	}
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs
}

func browser(t *testing.T) context.Context {
	t.Helper()
	path := findChromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Keep the sandboxed view in the page's process, where queries
		// reach into its document.
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,IsolateSandboxedIframes,site-per-process"),
		chromedp.WindowSize(640, 480),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// The first action starts the browser, on a context without deadline.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium at %s: %v", path, err)
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, browserDeadline)
	t.Cleanup(cancelTimeout)
	return ctx
}

// openView loads the host page for tool and returns the view's iframe once
// the host has rendered it and sent it the tool's result.
func openView(t *testing.T, ctx context.Context, base, endpoint, tool string) *chromedp.Node {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/host.html?mcp="+endpoint+"&tool="+tool),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="ready"], body[data-state^="error"]`)),
	)
	if err != nil {
		t.Fatalf("loading the host page: %v", err)
	}
	state, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("body"), "data-state"))
	if err != nil {
		t.Fatal(err)
	}
	if state.Value != "ready" {
		t.Fatalf("the host page failed: %s", state.Value)
	}
	frames, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe#view")))
	if err != nil {
		t.Fatal(err)
	}
	return frames[0]
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func TestBrowserTodoView(t *testing.T) {
	bridge := findBridge(t)
	ctx := browser(t)
	todos := NewTodos("Buy milk", "Write the report", "Call the plumber")
	hs := host(t, bridge, map[string]*sake.Server{"/mcp": sake.MustNew(todos)})

	frame := openView(t, ctx, hs.URL, "/mcp", "show_todos")
	in := chromedp.FromNode(frame)
	err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`#status[data-done="0"]`), in),
		chromedp.WaitVisible(chromedp.CSS(`li[data-id="3"]`), in),
		chromedp.Click(chromedp.CSS(`li[data-id="2"] button`), in),
		// The view called toggle_todo through the host; it shows the
		// result the server returned.
		chromedp.WaitVisible(chromedp.CSS(`li[data-id="2"].done`), in),
	)
	if err != nil {
		t.Fatalf("clicking Done in the view: %v", err)
	}
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#status`), in))
	if err != nil {
		t.Fatal(err)
	}
	if status != "1 of 3 done" {
		t.Errorf("the view says %q, want 1 of 3 done", status)
	}
	if s := todos.Snapshot(); s[0].Done || !s[1].Done || s[2].Done {
		t.Errorf("the server's list after the click: %+v, want item 2 done", s)
	}
	screenshot(t, ctx, "todos.png")

	// The form calls add_todo, visible to model and app alike.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#text`), "Water the plants", in),
		chromedp.Click(chromedp.CSS(`#add button`), in),
		chromedp.WaitVisible(chromedp.CSS(`li[data-id="4"]`), in),
	)
	if err != nil {
		t.Fatalf("adding from the view: %v", err)
	}
	if status, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#status`), in)); err != nil {
		t.Fatal(err)
	}
	if s := todos.Snapshot(); len(s) != 4 || s[3].Text != "Water the plants" || status != "1 of 4 done" {
		t.Errorf("after adding: %+v, the view says %q", s, status)
	}
}

// The probe view fetches an origin its CSP allows and one it does not, and
// reports what happened through an app-only tool.
const probeHTML = `<!DOCTYPE html>
<html><head><title>probe</title></head><body><p id="out">probing</p>
<script>
const violations = [];
document.addEventListener("securitypolicyviolation", (e) => violations.push(e.violatedDirective + " " + e.blockedURI));
let id = 0;
const pending = new Map();
window.addEventListener("message", (e) => {
  const m = e.data;
  if (m && m.id !== undefined && !m.method && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
});
function request(method, params) {
  const n = ++id;
  parent.postMessage({ jsonrpc: "2.0", id: n, method, params }, "*");
  return new Promise((resolve) => pending.set(n, resolve));
}
(async () => {
  await request("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "probe", version: "1" }, appCapabilities: {} });
  parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*");
  const r = { allowed: "", blocked: "" };
  try { r.allowed = await (await fetch({{.Allowed}} + "/ping")).text(); } catch (e) { r.allowed = "failed: " + e.message; }
  try { await fetch({{.Blocked}} + "/ping"); r.blocked = "reached"; } catch (e) { r.blocked = "refused"; }
  // The violation event follows the refused fetch.
  if (violations.length === 0) await new Promise((resolve) => document.addEventListener("securitypolicyviolation", resolve, { once: true }));
  r.violations = violations;
  document.getElementById("out").textContent = JSON.stringify(r);
  await request("tools/call", { name: "report_probe", arguments: r });
})();
</script></body></html>`

type probeReport struct {
	Allowed    string   `json:"allowed"`
	Blocked    string   `json:"blocked"`
	Violations []string `json:"violations"`
}

// pinger answers /ping for any origin and counts the requests it gets.
func pinger(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = fmt.Fprint(w, "pong")
	}))
	t.Cleanup(s.Close)
	return s, &hits
}

func TestBrowserViewCSPBlocksUndeclaredOrigins(t *testing.T) {
	bridge := findBridge(t)
	ctx := browser(t)
	allowed, allowedHits := pinger(t)
	blocked, blockedHits := pinger(t)

	srv := sake.MustNew(nil)
	tmpl := template.Must(template.New("probe").Parse(probeHTML))
	if err := srv.AddView(sake.NewViewTemplate("ui://probe/csp", tmpl, map[string]string{"Allowed": allowed.URL, "Blocked": blocked.URL}).
		CSP(sake.CSP{ConnectDomains: []string{allowed.URL}})); err != nil {
		t.Fatal(err)
	}
	reports := make(chan probeReport, 1)
	if err := srv.AddTool(
		sake.NewTool("csp_probe", func(ctx *sake.Context) (string, error) { return "probing", nil }).View("ui://probe/csp"),
		sake.NewTool("report_probe", func(ctx *sake.Context, r probeReport) (string, error) {
			select {
			case reports <- r:
			default:
			}
			return "thanks", nil
		}).View("ui://probe/csp").Visibility(sake.VisibleToApp),
	); err != nil {
		t.Fatal(err)
	}
	hs := host(t, bridge, map[string]*sake.Server{"/mcp": srv})
	openView(t, ctx, hs.URL, "/mcp", "csp_probe")

	var r probeReport
	select {
	case r = <-reports:
	case <-ctx.Done():
		t.Fatalf("the probe view never reported: %v", ctx.Err())
	}
	if r.Allowed != "pong" || allowedHits.Load() != 1 {
		t.Errorf("the declared origin: the view got %q, the server saw %d requests; want pong and 1", r.Allowed, allowedHits.Load())
	}
	if r.Blocked != "refused" {
		t.Errorf("the undeclared origin: fetch %s, want refused", r.Blocked)
	}
	if n := blockedHits.Load(); n != 0 {
		t.Errorf("the undeclared origin received %d requests, want 0", n)
	}
	if len(r.Violations) == 0 || !strings.Contains(strings.Join(r.Violations, " "), "connect-src") {
		t.Errorf("violations reported in the view: %v, want a connect-src one", r.Violations)
	}
	screenshot(t, ctx, "csp-probe.png")
}
