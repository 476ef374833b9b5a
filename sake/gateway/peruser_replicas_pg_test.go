package gateway_test

import (
	"crypto/rand"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/gateway/pgsignins"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// callbackOf plays user's browser on authURL as visit does, but stops
// short of the gateway: it returns the callback URL the authorization
// server sent the browser to, for the test to bring to a replica.
func callbackOf(t testing.TB, user, authURL string) string {
	t.Helper()
	_, callback := browse(t, user, authURL, false)
	return callback
}

// onReplica is callback as a balancer would pass it to the replica
// served at public.
func onReplica(callback, public string) string {
	u, _ := url.Parse(callback)
	p, _ := url.Parse(public)
	u.Scheme, u.Host = p.Scheme, p.Host
	return u.String()
}

// replicas starts two gateways on one PostgreSQL, sharing the vault of
// tokens and the sign-ins in progress, as `sake gateway -postgres` does.
func replicas(t *testing.T, remote string, opts ...gateway.Option) (a, b *gateway.Gateway, aPublic, bPublic string, pool *pgxpool.Pool) {
	t.Helper()
	_, _, pool = pgtest.Schema(t)
	tokens, err := pgusertokens.New(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, usertokens.KeySize)
	_, _ = rand.Read(key)
	vault, err := usertokens.New(tokens, key)
	if err != nil {
		t.Fatal(err)
	}
	replica := func() (*gateway.Gateway, string) {
		signIns, err := pgsignins.New(t.Context(), pool)
		if err != nil {
			t.Fatal(err)
		}
		g, public, _ := perUserGatewayVault(t, remote, `{"perUser": true}`, vault, append(opts, gateway.PendingSignIns(signIns))...)
		return g, public
	}
	a, aPublic = replica()
	b, bPublic = replica()
	return a, b, aPublic, bPublic, pool
}

// TestPerUserSignInAcrossReplicasInPostgreSQL: a sign-in begun on
// replica A whose callback a balancer without affinity brings to replica
// B completes there; the call waiting on A (2025-11-25) goes on, and a
// 2026-07-28 retry finds the token, on either replica, without asking
// again; the same callback again is refused on both replicas and signs
// nobody in anew.
func TestPerUserSignInAcrossReplicasInPostgreSQL(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		remote := newAccounts(t)
		a, b, aPublic, bPublic, _ := replicas(t, remote.url)
		var asked atomic.Int32
		var callback string
		ann := saketest.Connect(t, a.Server(), append(opts, saketest.Subject("ann"), saketest.OnInput(func(r protocol.ElicitRequest) protocol.ElicitResult {
			asked.Add(1)
			callback = callbackOf(t, "ann", r.URL)
			if !strings.HasPrefix(callback, aPublic) {
				t.Errorf("the sign-in begun on A comes back to %s, not A's %s", callback, aPublic)
			}
			if status, body := get(t, onReplica(callback, bPublic)); status != http.StatusOK {
				t.Errorf("the callback on replica B: %d %.200s", status, body)
			}
			return saketest.Accept(nil)
		}))...)
		if res, err := ann.CallTool("accounts_sign_in", nil); err != nil || !strings.Contains(res.Text(), "Signed in") || asked.Load() != 1 {
			t.Fatalf("the call begun on A: %v, %v, asked %d times", res, err, asked.Load())
		}
		if res, err := ann.CallTool("accounts_whoami", nil); err != nil || res.Text() != "ann" {
			t.Fatalf("whoami on A: %v, %v", res, err)
		}
		if got := completions(ann); ann.Session().Era != sake.EraModern && len(got) != 1 {
			t.Fatalf("the client waiting on A was told %v, want the sign-in complete once", got)
		}
		for name, g := range map[string]*gateway.Gateway{"A": a, "B": b} {
			c := saketest.Connect(t, g.Server(), saketest.Subject("ann"), signingIn(t, "ann", &asked))
			if _, err := c.CallTool("accounts_sign_in", nil); err != nil {
				t.Fatal(err)
			}
			if res, err := c.CallTool("accounts_whoami", nil); err != nil || res.Text() != "ann" || asked.Load() != 1 {
				t.Fatalf("ann on replica %s (2026-07-28): %v, %v, asked %d times", name, res, err, asked.Load())
			}
		}
		for name, public := range map[string]string{"A": aPublic, "B": bPublic} {
			if status, body := get(t, onReplica(callback, public)); status != http.StatusBadRequest || !strings.Contains(body, "not open") {
				t.Errorf("the callback replayed on %s: %d %.200s, want 400 saying it is not open", name, status, body)
			}
		}
		for _, who := range remote.seen() {
			if who != "ann" {
				t.Fatalf("the remote saw %v", remote.seen())
			}
		}
	})
}

// TestPerUserExpiredSignInRefusedOnEveryReplica: a sign-in whose link
// expired is refused at the callback on the other replica, the call
// waiting on the first fails, nobody is signed in, and the row is gone.
func TestPerUserExpiredSignInRefusedOnEveryReplica(t *testing.T) {
	remote := newAccounts(t)
	a, _, _, bPublic, pool := replicas(t, remote.url, gateway.SignIns(time.Nanosecond, 0))
	var status int
	eve := saketest.Connect(t, a.Server(), saketest.Legacy(), saketest.Subject("eve"), saketest.OnInput(func(r protocol.ElicitRequest) protocol.ElicitResult {
		status, _ = get(t, onReplica(callbackOf(t, "eve", r.URL), bPublic))
		return saketest.Accept(nil)
	}))
	if _, err := eve.CallTool("accounts_sign_in", nil); err == nil || !strings.Contains(err.Error(), "not completed") {
		t.Fatalf("an expired sign-in: %v", err)
	}
	if status != http.StatusBadRequest {
		t.Fatalf("the expired link's callback on B answered %d, want 400", status)
	}
	var rows int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM sake_pending_sign_ins`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d rows left, %v", rows, err)
	}
	if len(remote.seen()) != 0 {
		t.Fatalf("the remote was called: %v", remote.seen())
	}
}
