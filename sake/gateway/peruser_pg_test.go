package gateway_test

import (
	"crypto/rand"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestPerUserTokensSharedByReplicasInPostgreSQL: two gateways on one
// PostgreSQL vault serve as one for the per-user entries: ann signs in
// through the first and the second calls the remote as her without
// asking; her sign-out through the second signs her out of both (the
// first's session finds her token gone and asks her again).
func TestPerUserTokensSharedByReplicasInPostgreSQL(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	store, err := pgusertokens.New(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, usertokens.KeySize)
	_, _ = rand.Read(key)
	vault, err := usertokens.New(store, key)
	if err != nil {
		t.Fatal(err)
	}
	remote := newAccounts(t)
	first, _, _ := perUserGatewayVault(t, remote.url, `{"perUser": true}`, vault)
	second, _, _ := perUserGatewayVault(t, remote.url, `{"perUser": true}`, vault)
	var asked atomic.Int32
	viaFirst := saketest.Connect(t, first.Server(), saketest.Subject("ann"), signingIn(t, "ann", &asked))
	viaSecond := saketest.Connect(t, second.Server(), saketest.Subject("ann"), signingIn(t, "ann", &asked))
	if _, err := viaFirst.CallTool("accounts_sign_in", nil); err != nil {
		t.Fatal(err)
	}
	if res, err := viaSecond.CallTool("accounts_sign_in", nil); err != nil || asked.Load() != 1 {
		t.Fatalf("through the second replica: %v, %v, asked %d times", res, err, asked.Load())
	}
	if res, err := viaSecond.CallTool("accounts_whoami", nil); err != nil || res.Text() != "ann" {
		t.Fatalf("whoami: %v, %v", res, err)
	}
	if _, err := viaSecond.CallTool("accounts_sign_out", nil); err != nil {
		t.Fatal(err)
	}
	if tok, err := vault.For("ann").Load(t.Context(), remote.url); err != nil || tok != nil {
		t.Fatalf("after signing out: %+v, %v", tok, err)
	}
	// The first replica's session of ann's finds no token any more: she
	// is asked again.
	if res, err := viaFirst.CallTool("accounts_whoami", nil); err != nil || res.Text() != "ann" || asked.Load() != 2 {
		t.Fatalf("through the first replica after signing out: %v, %v, asked %d times", res, err, asked.Load())
	}
}
