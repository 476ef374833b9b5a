package gateway_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// signingIn answers the gateway's URL elicitations as user's browser
// would, counting them.
func signingIn(t testing.TB, user string, asked *atomic.Int32) saketest.Option {
	return saketest.OnInput(func(r protocol.ElicitRequest) protocol.ElicitResult {
		asked.Add(1)
		if r.Mode != "url" || r.URL == "" {
			t.Errorf("the gateway asked %+v, want a URL", r)
			return saketest.Cancel()
		}
		if status, _ := visit(t, user, r.URL); status != http.StatusOK {
			t.Errorf("the callback answered %d", status)
		}
		return saketest.Accept(nil)
	})
}

// TestPerUserCallsCarryEachUsersToken: two callers of the gateway, each
// signed in to the remote with their own account when they first call
// it, reach the remote with their own subjects; an anonymous caller is
// refused and the remote sees nothing of it.
func TestPerUserCallsCarryEachUsersToken(t *testing.T) {
	t.Parallel()
	for _, upstream := range []struct {
		name   string
		legacy bool
		opts   []gateway.Option
	}{
		{"remote 2026-07-28", false, nil},
		{"remote 2025-11-25", true, []gateway.Option{gateway.ClientOptions(client.ProtocolVersion("2025-11-25"))}},
	} {
		t.Run(upstream.name, func(t *testing.T) {
			t.Parallel()
			perUserCalls(t, upstream.legacy, upstream.opts...)
		})
	}
}

func perUserCalls(t *testing.T, legacyRemote bool, gopts ...gateway.Option) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		remote := newAccounts(t)
		g, _, _ := perUserGateway(t, remote.url, gopts...)
		defer func() {
			if (remote.inits.Load() > 0) != legacyRemote {
				t.Errorf("the remote was opened %d times in 2025-11-25; want legacy %v", remote.inits.Load(), legacyRemote)
			}
		}()
		var annAsked, bobAsked atomic.Int32
		ann := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("ann"), signingIn(t, "ann", &annAsked))...)
		bob := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("bob"), signingIn(t, "bob", &bobAsked))...)
		anon := saketest.Connect(t, g.Server(), opts...)

		if got := names(t, ann); !slices.Equal(got, []string{"accounts_sign_in", "accounts_sign_out"}) {
			t.Fatalf("before signing in, ann is listed %v", got)
		}
		// No one signed in yet, the remote's tools are unknown: ann
		// signs in with the entry's sign_in; bob, later, is asked by
		// his first call.
		if res, err := ann.CallTool("accounts_sign_in", nil); err != nil || annAsked.Load() != 1 {
			t.Fatalf("ann signing in: %v, %v (asked %d times)", res, err, annAsked.Load())
		}
		for _, tc := range []struct {
			c     *saketest.Client
			who   string
			asked *atomic.Int32
			n     int32
		}{{ann, "ann", &annAsked, 1}, {bob, "bob", &bobAsked, 1}, {ann, "ann", &annAsked, 1}, {bob, "bob", &bobAsked, 1}} {
			res, err := tc.c.CallTool("accounts_whoami", nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.who, err)
			}
			if res.Text() != tc.who {
				t.Fatalf("%s's call reached the remote as %q", tc.who, res.Text())
			}
			if tc.asked.Load() != tc.n {
				t.Fatalf("%s was asked to sign in %d times, want %d", tc.who, tc.asked.Load(), tc.n)
			}
		}
		if got := remote.seen(); !slices.Equal(got, []string{"ann", "bob", "ann", "bob"}) {
			t.Fatalf("the remote saw %v", got)
		}
		if got := names(t, ann); !slices.Equal(got, []string{"accounts_hold", "accounts_sign_in", "accounts_sign_out", "accounts_whoami"}) {
			t.Fatalf("signed in, ann is listed %v", got)
		}
		// Anonymous: listed nothing of the entry, refused, never called.
		if got := names(t, anon); len(got) != 0 {
			t.Fatalf("an anonymous caller is listed %v", got)
		}
		_, err := anon.CallTool("accounts_whoami", nil)
		var e *sake.Error
		if !errors.As(err, &e) || !strings.Contains(e.Message, "sign in to the gateway") {
			t.Fatalf("an anonymous call: %v", err)
		}
		if got := remote.seen(); len(got) != 4 {
			t.Fatalf("the remote saw %v after an anonymous call", got)
		}

		// Signed out, ann is asked again; bob is not.
		if _, err := ann.CallTool("accounts_sign_out", nil); err != nil {
			t.Fatal(err)
		}
		if res, err := ann.CallTool("accounts_whoami", nil); err != nil || res.Text() != "ann" {
			t.Fatalf("ann after signing out: %v, %v", res, err)
		}
		if annAsked.Load() != 2 || bobAsked.Load() != 1 {
			t.Fatalf("asked ann %d times, bob %d, want 2 and 1", annAsked.Load(), bobAsked.Load())
		}
		// Signed out of every per-user entry by the program, bob is asked
		// again too.
		if err := g.SignOut(t.Context(), "bob"); err != nil {
			t.Fatal(err)
		}
		if res, err := bob.CallTool("accounts_whoami", nil); err != nil || res.Text() != "bob" || bobAsked.Load() != 2 {
			t.Fatalf("bob after Gateway.SignOut: %v, %v, asked %d times", res, err, bobAsked.Load())
		}
	})
}
