package gateway_test

import (
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake/saketest"
)

// BenchmarkPerUserCall is one call of a signed-in user through a per-user
// entry: the caller's session found, the remote called over loopback HTTP
// with the user's token (loaded from the vault and opened per request).
func BenchmarkPerUserCall(b *testing.B) {
	remote := newAccounts(b)
	g, _, _ := perUserGateway(b, remote.url)
	var asked atomic.Int32
	ann := saketest.Connect(b, g.Server(), saketest.Subject("ann"), signingIn(b, "ann", &asked), saketest.WithoutTrace())
	if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ann.CallTool("accounts_whoami", nil); err != nil {
			b.Fatal(err)
		}
	}
}
