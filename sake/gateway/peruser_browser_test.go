package gateway_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// chromium starts a headless Chromium of its own (its own cookies: one
// person's browser) with JavaScript disabled, as the sign-in pages must
// work without it. The test is skipped when there is none.
func chromium(t *testing.T) context.Context {
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
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
	err := chromedp.Do(ctx)
	if err == nil {
		_, err = chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	}
	if err != nil {
		cancelTimeout()
		cancelTab()
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
		cancelTab()
		cancelAlloc()
	})
	return ctx
}

// signingInWithChromium answers the gateway's URL elicitation as a person
// would: user opens the page in their browser, signs in to the remote's
// authorization server with their name, allows the gateway, and lands on
// the gateway's page saying they are signed in.
func signingInWithChromium(t *testing.T, browser context.Context, user string, asked *atomic.Int32) saketest.Option {
	return saketest.OnInput(func(r protocol.ElicitRequest) protocol.ElicitResult {
		asked.Add(1)
		err := chromedp.Do(browser,
			chromedp.Navigate(r.URL),
			chromedp.WaitVisible("#user"),
			chromedp.SendKeys("#user", user),
			chromedp.Click("#go"),
			chromedp.WaitVisible(`button[value="allow"]`),
			chromedp.Click(`button[value="allow"]`),
			chromedp.WaitVisible(`//h1[contains(., "Signed in")]`),
		)
		if err != nil {
			t.Errorf("%s's browser: %v", user, err)
			return saketest.Cancel()
		}
		return saketest.Accept(nil)
	})
}

// TestPerUserTwoPeopleSignInWithChromium: ann and bob, signed in to the
// gateway, each sign in to the remote in their own headless Chromium by
// following the URL the gateway's elicitation gave; the remote sees each
// call with the subject of its caller's own token.
func TestPerUserTwoPeopleSignInWithChromium(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		annBrowser, bobBrowser := chromium(t), chromium(t)
		remote := newAccounts(t)
		g, _, _ := perUserGateway(t, remote.url)
		var annAsked, bobAsked atomic.Int32
		ann := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("ann"), signingInWithChromium(t, annBrowser, "ann", &annAsked))...)
		bob := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("bob"), signingInWithChromium(t, bobBrowser, "bob", &bobAsked))...)
		if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			cl  *saketest.Client
			who string
		}{{ann, "ann"}, {bob, "bob"}, {ann, "ann"}, {bob, "bob"}} {
			res, err := c.cl.CallTool("accounts_whoami", nil)
			if err != nil || res.Text() != c.who {
				t.Fatalf("%s: %v, %v", c.who, res, err)
			}
		}
		if got := remote.seen(); !slices.Equal(got, []string{"ann", "bob", "ann", "bob"}) {
			t.Fatalf("the remote saw %v", got)
		}
		if annAsked.Load() != 1 || bobAsked.Load() != 1 {
			t.Fatalf("asked ann %d times and bob %d, want once each", annAsked.Load(), bobAsked.Load())
		}
	})
}
