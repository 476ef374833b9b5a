package pgusertokens_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"reflect"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

const crm, ledger = "https://crm.example/mcp", "https://ledger.example/mcp"

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, usertokens.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func token(access string) *client.Token {
	return &client.Token{AccessToken: access, TokenType: "Bearer", RefreshToken: "refresh-" + access,
		Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), Issuer: "https://as.example", ClientID: "gateway"}
}

func TestTheTableHoldsOnlyCiphertext(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	vault, err := usertokens.New(newStore(t, pool), newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := vault.For("ann").Save(ctx, crm, token("ann-access-3f9c")); err != nil {
		t.Fatal(err)
	}
	var sealed []byte
	var row string
	if err := pool.QueryRow(ctx, `SELECT sealed, t::text FROM sake_user_tokens t WHERE user_id = 'ann'::bytea`).Scan(&sealed, &row); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"ann-access-3f9c", "refresh-ann-access-3f9c", "as.example"} {
		if bytes.Contains(sealed, []byte(secret)) || bytes.Contains([]byte(row), []byte(secret)) {
			t.Fatalf("the row holds %q in clear", secret)
		}
	}
	got, err := vault.For("ann").Load(ctx, crm)
	if err != nil || got == nil || !reflect.DeepEqual(got, token("ann-access-3f9c")) {
		t.Fatalf("Load = %+v, %v", got, err)
	}
}

func TestARowCopiedToAnotherUserDoesNotOpen(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	vault, _ := usertokens.New(newStore(t, pool), newKey(t))
	if err := vault.For("ann").Save(ctx, crm, token("ann")); err != nil {
		t.Fatal(err)
	}
	// Someone with the database, not the key, copies ann's row to bob and
	// to another resource of ann's.
	if _, err := pool.Exec(ctx, `INSERT INTO sake_user_tokens (user_id, resource, sealed, updated_at)
		SELECT 'bob'::bytea, resource, sealed, now() FROM sake_user_tokens WHERE user_id = 'ann'::bytea
		UNION ALL
		SELECT user_id, convert_to($1, 'UTF8'), sealed, now() FROM sake_user_tokens WHERE user_id = 'ann'::bytea`, ledger); err != nil {
		t.Fatal(err)
	}
	if rows(t, pool, "bob") != 1 || rows(t, pool, "ann") != 2 {
		t.Fatal("the rows were not copied")
	}
	if got, err := vault.For("bob").Load(ctx, crm); err != nil || got != nil {
		t.Fatalf("bob loads ann's copied row: %+v, %v", got, err)
	}
	if got, err := vault.For("ann").Load(ctx, ledger); err != nil || got != nil {
		t.Fatalf("ann's row copied to another resource opens: %+v, %v", got, err)
	}
	if got, err := vault.For("ann").Load(ctx, crm); err != nil || got == nil || got.AccessToken != "ann" {
		t.Fatalf("ann's own row: %+v, %v", got, err)
	}
}

func TestSignOutDeletesEveryRowOfTheUserAndNoOther(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	ctx := context.Background()
	key := newKey(t)
	one, _ := usertokens.New(newStore(t, pool), key)
	two, _ := usertokens.New(newStore(t, pgtest.Pool(t, url, schema)), key)
	for _, s := range []struct {
		vault          *usertokens.Vault
		user, resource string
	}{{one, "ann", crm}, {two, "ann", ledger}, {one, "bob", crm}, {two, "annabel", crm}} {
		if err := s.vault.For(s.user).Save(ctx, s.resource, token(s.user)); err != nil {
			t.Fatal(err)
		}
	}
	if err := two.SignOut(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, pool, "ann"); n != 0 {
		t.Fatalf("%d rows of ann after SignOut", n)
	}
	for _, r := range []string{crm, ledger} {
		if got, err := one.For("ann").Load(ctx, r); err != nil || got != nil {
			t.Fatalf("ann still loads a token at %s on the other replica: %+v, %v", r, got, err)
		}
	}
	for _, u := range []string{"bob", "annabel"} {
		if got, err := one.For(u).Load(ctx, crm); err != nil || got == nil || got.AccessToken != u {
			t.Fatalf("signing ann out lost %s's token: %+v, %v", u, got, err)
		}
	}
}

// The per-user bound of the store is that of the vault's users.
func TestAVaultUserPastTheBoundSignsInAgainAtTheOldest(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	vault, _ := usertokens.New(newStore(t, pool, pgusertokens.MaxPerUser(1)), newKey(t))
	_ = vault.For("ann").Save(ctx, crm, token("crm"))
	if err := vault.For("ann").Save(ctx, ledger, token("ledger")); err != nil {
		t.Fatal(err)
	}
	if got, _ := vault.For("ann").Load(ctx, crm); got != nil {
		t.Fatal("the oldest token stayed past MaxPerUser")
	}
	if got, _ := vault.For("ann").Load(ctx, ledger); got == nil || got.AccessToken != "ledger" {
		t.Fatal("the newest token went")
	}
}
