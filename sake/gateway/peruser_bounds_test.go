package gateway_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestPerUserSessionsAreBounded: past UserSessions' bound, the session
// used least recently is closed; its user's next call opens another with
// the token held, without asking.
func TestPerUserSessionsAreBounded(t *testing.T) {
	t.Parallel()
	remote := newAccounts(t)
	g, _, _ := perUserGateway(t, remote.url, gateway.UserSessions(1, time.Hour))
	var annAsked, bobAsked atomic.Int32
	ann := saketest.Connect(t, g.Server(), saketest.Subject("ann"), signingIn(t, "ann", &annAsked))
	bob := saketest.Connect(t, g.Server(), saketest.Subject("bob"), signingIn(t, "bob", &bobAsked))
	for _, c := range []*saketest.Client{ann, bob, ann} {
		if _, err := c.CallTool("accounts_sign_in", nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := remote.opens.Load(); n != 3 {
		t.Fatalf("the remote was connected %d times, want 3 (bob's session closed ann's, ann's closed bob's)", n)
	}
	if annAsked.Load() != 1 || bobAsked.Load() != 1 {
		t.Fatalf("asked ann %d times, bob %d: a closed session asked again", annAsked.Load(), bobAsked.Load())
	}
	if res, err := ann.CallTool("accounts_whoami", nil); err != nil || res.Text() != "ann" {
		t.Fatalf("ann: %v, %v", res, err)
	}
	// bob's session is closed (ann's took its place): his lists stay as
	// his session left them, until he signs out.
	if got := names(t, bob); !slices.Contains(got, "accounts_whoami") {
		t.Fatalf("bob, his session closed, is listed %v", got)
	}
	if _, err := bob.CallTool("accounts_sign_out", nil); err != nil {
		t.Fatal(err)
	}
	if got := names(t, bob); slices.Contains(got, "accounts_whoami") {
		t.Fatalf("bob, signed out, is listed %v", got)
	}
}

// TestPerUserOpenSignInsAreBounded: past SignIns' bound, a sign-in is
// refused with an error saying so; the open one still completes.
func TestPerUserOpenSignInsAreBounded(t *testing.T) {
	t.Parallel()
	remote := newAccounts(t)
	g, _, _ := perUserGateway(t, remote.url, gateway.SignIns(time.Hour, 1))
	// Clients without URL elicitation leave their sign-in open.
	ann := saketest.Connect(t, g.Server(), saketest.Legacy(), saketest.Subject("ann"))
	bob := saketest.Connect(t, g.Server(), saketest.Legacy(), saketest.Subject("bob"))
	var e *sake.Error
	if _, err := ann.CallTool("accounts_sign_in", nil); !errors.As(err, &e) || e.Code != gateway.CodeURLElicitationRequired {
		t.Fatalf("ann: %v", err)
	}
	// ann's call again reuses her open sign-in.
	if _, err := ann.CallTool("accounts_sign_in", nil); !errors.As(err, &e) || e.Code != gateway.CodeURLElicitationRequired {
		t.Fatalf("ann again: %v", err)
	}
	if _, err := bob.CallTool("accounts_sign_in", nil); err == nil || !strings.Contains(err.Error(), "sign-ins open") {
		t.Fatalf("bob past the bound: %v", err)
	}
}

// TestPerUserCallsHeldToTheProxyLimits: the calls of all the users of a
// per-user entry are held to the gateway's MaxInFlight and CallTimeout,
// as a shared remote's are.
func TestPerUserCallsHeldToTheProxyLimits(t *testing.T) {
	t.Parallel()
	remote := newAccounts(t)
	g, _, _ := perUserGateway(t, remote.url, gateway.ProxyOptions(proxy.MaxInFlight(1)))
	var annAsked, bobAsked atomic.Int32
	ann := saketest.Connect(t, g.Server(), saketest.Subject("ann"), signingIn(t, "ann", &annAsked))
	bob := saketest.Connect(t, g.Server(), saketest.Subject("bob"), signingIn(t, "bob", &bobAsked))
	for _, c := range []*saketest.Client{ann, bob} {
		if _, err := c.CallTool("accounts_sign_in", nil); err != nil {
			t.Fatal(err)
		}
	}
	held := make(chan error, 1)
	go func() {
		res, err := ann.CallTool("accounts_hold", nil)
		if err == nil && res.Text() != "released" {
			err = fmt.Errorf("hold = %q", res.Text())
		}
		held <- err
	}()
	<-remote.entered
	if _, err := bob.CallTool("accounts_whoami", nil); err == nil || !strings.Contains(err.Error(), "in flight") {
		t.Fatalf("bob's call past MaxInFlight: %v", err)
	}
	remote.releaseHold()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if res, err := bob.CallTool("accounts_whoami", nil); err != nil || res.Text() != "bob" {
		t.Fatalf("bob once ann's call ended: %v, %v", res, err)
	}

	slow := newAccounts(t)
	g2, _, _ := perUserGateway(t, slow.url, gateway.ProxyOptions(proxy.CallTimeout(time.Millisecond)))
	cy := saketest.Connect(t, g2.Server(), saketest.Subject("cy"), signingIn(t, "cy", &annAsked))
	if _, err := cy.CallTool("accounts_sign_in", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cy.CallTool("accounts_hold", nil); err == nil || !strings.Contains(err.Error(), "did not answer within") {
		t.Fatalf("a call past CallTimeout: %v", err)
	}
}
