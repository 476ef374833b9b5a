package gateway_test

import (
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestPerUserRefreshesARefusedToken: when the remote refuses the user's
// access token, the gateway refreshes it and the call goes on without
// asking; when the refresh is refused too, the user is asked to sign in
// again within the call.
func TestPerUserRefreshesARefusedToken(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		remote := newAccounts(t)
		g, _, vault := perUserGateway(t, remote.url)
		var asked atomic.Int32
		ann := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("ann"), signingIn(t, "ann", &asked))...)
		if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
			t.Fatal(err)
		}
		store := vault.For("ann")
		held, err := store.Load(t.Context(), remote.url)
		if err != nil || held == nil || held.RefreshToken == "" {
			t.Fatalf("ann's token = %+v, %v; want one with a refresh token", held, err)
		}
		spoil := func(refresh string) {
			tok, _ := store.Load(t.Context(), remote.url)
			tok.AccessToken = "refused"
			if refresh != "" {
				tok.RefreshToken = refresh
			}
			if err := store.Save(t.Context(), remote.url, tok); err != nil {
				t.Fatal(err)
			}
		}

		spoil("")
		if res, err := ann.CallTool("accounts_whoami", nil); err != nil || res.Text() != "ann" || asked.Load() != 1 {
			t.Fatalf("after a refused access token: %v, %v, asked %d times; want a refresh, no question", res, err, asked.Load())
		}
		if now, _ := store.Load(t.Context(), remote.url); now == nil || now.AccessToken == "refused" || now.AccessToken == held.AccessToken {
			t.Fatalf("the token was not refreshed: %+v", now)
		}

		spoil("refused-too")
		if res, err := ann.CallTool("accounts_whoami", nil); err != nil || res.Text() != "ann" || asked.Load() != 2 {
			t.Fatalf("after a refused refresh: %v, %v, asked %d times; want a new sign-in", res, err, asked.Load())
		}
	})
}
