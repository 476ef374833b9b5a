package main

import (
	"context"
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

// chromium starts headless Chromium with page scripts disabled, and saves
// a screenshot in the test's artifact directory when the test fails. It
// skips the test when no Chromium is installed.
func chromium(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	path := ""
	for _, b := range []string{os.Getenv("SAKE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); b != "" && err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("Chromium is not installed: run scripts/chromium.sh (or set SAKE_CHROMIUM)")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1000, 900))
	tab, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(tab, timeout)
	err := chromedp.Do(ctx)
	if err == nil {
		_, err = chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
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
		cancelTab()
		cancelAlloc()
	})
	if err != nil {
		t.Skipf("Chromium at %s does not start (%v): run scripts/chromium.sh", path, err)
	}
	return ctx
}

// signInAndAllow fills the login form as the demo user (with the one-time
// code when otp is set) and allows on the consent page.
func signInAndAllow(t *testing.T, ctx context.Context, start, otp string, askConsent bool) (login, consent string) {
	t.Helper()
	steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(start), chromedp.WaitVisible("#username")}
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
	login, err := pageHTML(ctx)
	if err != nil {
		t.Fatal(err)
	}
	steps = []chromedp.Action[chromedp.Void]{chromedp.SendKeys("#username", DemoUser), chromedp.SendKeys("#password", DemoPassword)}
	if otp != "" {
		steps = append(steps, chromedp.SendKeys("#otp", otp))
	}
	steps = append(steps, chromedp.Click("#sign-in"))
	if !askConsent {
		// Consent is remembered: the browser goes straight back.
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
		return login, ""
	}
	steps = append(steps, chromedp.WaitVisible(`button[value="allow"]`))
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
	if consent, err = pageHTML(ctx); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`button[value="allow"]`)); err != nil {
		t.Fatal(err)
	}
	return login, consent
}

var (
	inputTag = regexp.MustCompile(`<input\b[^>]*>`)
	idAttr   = regexp.MustCompile(`\bid="([^"]*)"`)
)

// labelled checks that every visible input of a page has a label, that
// it has a form and no script.
func labelled(t *testing.T, name, page string) {
	t.Helper()
	if !strings.Contains(page, "<form method=\"post\"") || strings.Contains(page, "<script") || !strings.Contains(page, `lang="en"`) {
		t.Errorf("%s: needs a posting form, a language and no script", name)
	}
	for _, in := range inputTag.FindAllString(page, -1) {
		if strings.Contains(in, `type="hidden"`) {
			continue
		}
		m := idAttr.FindStringSubmatch(in)
		if m == nil || !strings.Contains(page, `<label for="`+m[1]+`"`) {
			t.Errorf("%s: input without a label: %s", name, in)
		}
	}
}

func TestLoginAndConsentInBrowser(t *testing.T) {
	app, b := startApp(t)
	ctx := chromium(t, 2*time.Minute)
	cb, got := callbackListener(t)
	_, challenge := pkcePair()
	start := b.base + "/oauth/authorize?response_type=code&client_id=" + DemoClientID + "&redirect_uri=" + url.QueryEscape(cb) +
		"&code_challenge=" + challenge + "&code_challenge_method=S256&state=s1&acr_values=" + MFA
	login, consent := signInAndAllow(t, ctx, start, DemoCode, true)
	labelled(t, "login", login)
	labelled(t, "consent", consent)
	if !strings.Contains(login, "needs a multi-factor sign-in") || !strings.Contains(consent, "Demo client") ||
		!strings.Contains(consent, "Read your notes") {
		t.Fatalf("login %s\nconsent %s", login, consent)
	}
	var q map[string][]string
	select {
	case q = <-got:
	case <-ctx.Done():
		t.Fatal("the browser never came back to the client")
	}
	if len(q["code"]) != 1 || q["iss"][0] != app.AS.Issuer() || q["state"][0] != "s1" {
		t.Fatalf("callback %v", q)
	}
}

// pageHTML returns the current document's markup, reading it again (a few
// times at most) when the document was replaced while it was read.
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
