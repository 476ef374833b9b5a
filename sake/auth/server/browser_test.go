package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds a Chromium: $SAKE_CHROMIUM, chromium,
// chromium-browser or google-chrome.
func chromiumPath() string {
	for _, b := range []string{os.Getenv("SAKE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if b == "" {
			continue
		}
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	return ""
}

// browser starts headless Chromium with JavaScript disabled (the pages
// must work without it) and, if the test fails, saves a screenshot of
// the page in the test's artifact directory.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("Chromium is not installed: run scripts/chromium.sh (or set SAKE_CHROMIUM)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1000, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
	err := chromedp.Do(ctx)
	if err == nil {
		_, err = chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	}
	if err != nil {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		t.Skipf("Chromium at %s does not start (%v): run scripts/chromium.sh", path, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			shot, cancel := context.WithTimeout(tab, 10*time.Second)
			if png, err := chromedp.Run(shot, chromedp.FullScreenshot(90)); err == nil {
				name := filepath.Join(t.ArtifactDir(), "page.png")
				if os.WriteFile(name, png, 0o644) == nil {
					t.Logf("screenshot of the page: %s", name)
				}
			}
			cancel()
		}
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	return ctx
}

// callbackServer records the query of the first request to /callback.
func callbackServer(t *testing.T) (string, <-chan url.Values) {
	got := make(chan url.Values, 1)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.URL.Query():
		default:
		}
		_, _ = w.Write([]byte("<!doctype html><title>done</title><p>Back in the application.</p>"))
	}))
	t.Cleanup(cb.Close)
	return strings.Replace(cb.URL, "127.0.0.1", "127.0.0.1", 1) + "/callback", got
}

var (
	inputTagRE = regexp.MustCompile(`<input\b[^>]*>`)
	attrRE     = regexp.MustCompile(`\b(type|id)="([^"]*)"`)
)

// checkMarkup checks what a page needs to be usable by everyone and
// without scripts: a language, a main landmark, a heading, no script, a
// form that posts or gets by itself, and a label for every visible input.
func checkMarkup(t *testing.T, page string) {
	t.Helper()
	for _, want := range []string{`<html lang="en"`, "<main", "<h1", "<form method="} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("page has a script")
	}
	for _, in := range inputTagRE.FindAllString(page, -1) {
		attrs := map[string]string{}
		for _, m := range attrRE.FindAllStringSubmatch(in, -1) {
			attrs[m[1]] = m[2]
		}
		if attrs["type"] == "hidden" {
			continue
		}
		if attrs["id"] == "" || !strings.Contains(page, `<label for="`+attrs["id"]+`"`) {
			t.Errorf("input without a label: %s", in)
		}
	}
}

func await[T any](t *testing.T, ctx context.Context, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatal("the browser never reached the redirect URI")
		panic("unreachable")
	}
}

func TestBrowserConsent(t *testing.T) {
	h := newHarness(t)
	ctx := browser(t)
	h.login.base = h.ts.URL
	cbURL, got := callbackServer(t)
	_, challenge := pkce()
	p := authParams(challenge)
	p.Set("redirect_uri", cbURL)
	err := chromedp.Do(ctx,
		chromedp.Navigate(h.url(pathAuthorize)+"?"+p.Encode()),
		chromedp.WaitVisible("#username"),
		chromedp.SendKeys("#username", "alice"),
		chromedp.Click("#signin"),
		chromedp.WaitVisible(`button[value="allow"]`),
	)
	if err != nil {
		t.Fatal(err)
	}
	page, err := pageHTML(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkMarkup(t, page)
	for _, want := range []string{"Public App", "Read your notes", "127.0.0.1", "alice", "your own computer"} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(`button[value="allow"]`)); err != nil {
		t.Fatal(err)
	}
	q := await(t, ctx, got)
	if q.Get("code") == "" || q.Get("state") != "st-1" || q.Get("iss") != h.as.Issuer() {
		t.Fatalf("callback %v", q)
	}
}

func TestBrowserDevicePage(t *testing.T) {
	h := newHarness(t)
	ctx := browser(t)
	h.login.base = h.ts.URL
	_, da := h.postForm(h.url(pathDeviceAuthorization), url.Values{"client_id": {publicID}, "scope": {"notes:read"}})
	step := func(steps ...chromedp.Action[chromedp.Void]) string {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
		page, err := pageHTML(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	// Sign in: the click starts a navigation, so the page is read only
	// once the code-entry page shows.
	if err := chromedp.Do(ctx, chromedp.Navigate(da["verification_uri"].(string)), chromedp.WaitVisible("#username"),
		chromedp.SendKeys("#username", "alice"), chromedp.Click("#signin")); err != nil {
		t.Fatal(err)
	}
	entry := step(chromedp.WaitVisible("#user_code"))
	confirm := step(chromedp.SendKeys("#user_code", strings.ToLower(da["user_code"].(string))),
		chromedp.Click(`button[type="submit"]`), chromedp.WaitVisible(`button[value="allow"]`))
	done := step(chromedp.Click(`button[value="allow"]`), chromedp.WaitVisible(`//h1[contains(., "connected")]`))
	checkMarkup(t, entry)
	checkMarkup(t, confirm)
	if !strings.Contains(confirm, "Public App") || !strings.Contains(done, "Your device is connected") {
		t.Fatalf("confirm %s\ndone %s", confirm, done)
	}
	h.clock.add(6 * time.Second)
	resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {grantDevice}, "device_code": {da["device_code"].(string)}, "client_id": {publicID}})
	if resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
}

// pageHTML returns the current document's markup. A document replaced
// while it is read (the last step of a redirect chain) invalidates the
// node being read; the read is then made again on the new document, a few
// times at most.
func pageHTML(ctx context.Context) (string, error) {
	var err error
	for range 5 {
		var page string
		if page, err = chromedp.Run(ctx, chromedp.OuterHTML("html")); err == nil {
			return page, nil
		}
		if msg := err.Error(); !strings.Contains(msg, "No node with given id") && !strings.Contains(msg, "Cannot find context with specified id") {
			return "", err
		}
	}
	return "", err
}
