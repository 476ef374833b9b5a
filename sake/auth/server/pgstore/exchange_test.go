package pgstore_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/auth/server/pgstore"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

// adaLogin signs everyone in as ada.
type adaLogin struct{}

func (adaLogin) Current(*http.Request) (*server.Authentication, error) {
	return &server.Authentication{Subject: "ada", AuthTime: time.Now()}, nil
}
func (adaLogin) LoginURL(_ *http.Request, req server.LoginRequest) string { return req.ReturnTo }
func (adaLogin) Lookup(context.Context, string) (*server.Subject, error) {
	return &server.Subject{Active: true}, nil
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// TestTokenExchangeOnPostgres exchanges, on one replica, a token the
// other issued, then revokes the person's authorization on the first:
// the second replica's verifier refuses the exchanged token, and the
// subject token is exchanged no more.
func TestTokenExchangeOnPostgres(t *testing.T) {
	url0, schema, pool := pgtest.Schema(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	hash, _ := server.HashSecret("rs-a-secret")
	const resA, resB, cb = "https://a.example/mcp", "https://b.example/mcp", "http://127.0.0.1/cb"
	first := httptest.NewUnstartedServer(nil)
	issuer := "http://" + first.Listener.Addr().String()
	var replicas [2]*server.Server
	var stores [2]*pgstore.Store
	var urls [2]string
	for i := range replicas {
		p := pool
		if i == 1 {
			p = pgtest.Pool(t, url0, schema)
		}
		stores[i] = newStore(t, p)
		as, err := server.New(server.Config{Issuer: issuer, Login: adaLogin{}, Store: stores[i],
			Resources: []string{resA, resB}, Scopes: []server.Scope{{Name: "read"}, {Name: "write"}},
			SigningKeys: []crypto.Signer{key}, Secret: secret,
			Clients: []server.Client{{ID: "app", RedirectURIs: []string{cb}},
				{ID: "rs-a", SecretHash: hash, GrantTypes: []string{server.GrantTokenExchange}, ExchangeFrom: []string{resA}}}})
		if err != nil {
			t.Fatal(err)
		}
		replicas[i] = as
		ts := first
		if i == 0 {
			ts.Config.Handler = as.Handler()
			ts.Start()
		} else {
			ts = httptest.NewServer(as.Handler())
		}
		t.Cleanup(ts.Close)
		urls[i] = ts.URL + server.DefaultPrefix
	}

	// Ada authorizes the app for A on the first replica.
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	verifier := strings.Repeat("v", 50)
	q := url.Values{"response_type": {"code"}, "client_id": {"app"}, "redirect_uri": {cb}, "state": {"s"},
		"code_challenge": {server.S256(verifier)}, "code_challenge_method": {"S256"}, "scope": {"read write"}, "resource": {resA}}
	resp, err := hc.Get(urls[0] + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	form := url.Values{"decision": {"allow"}}
	for _, m := range hiddenField.FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	resp, err = hc.PostForm(urls[0]+"/consent", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	post := func(base string, form url.Values, basic ...string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, base, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if basic != nil {
			req.SetBasicAuth(basic[0], basic[1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	_, tok := post(urls[0]+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"code_verifier": {verifier}, "redirect_uri": {cb}, "client_id": {"app"}})
	subject, _ := tok["access_token"].(string)
	if subject == "" {
		t.Fatalf("code grant: %v (consent redirect %s)", tok, loc)
	}

	// A's resource server exchanges it on the second replica.
	exchange := url.Values{"grant_type": {server.GrantTokenExchange}, "subject_token": {subject},
		"subject_token_type": {server.TokenTypeAccessToken}, "resource": {resB}, "scope": {"read"}}
	status, x := post(urls[1]+"/token", exchange, "rs-a", "rs-a-secret")
	exchanged, _ := x["access_token"].(string)
	if status != 200 || exchanged == "" || x["refresh_token"] != nil {
		t.Fatalf("exchange: %d %v", status, x)
	}
	// A scope the original lacked: refused on PostgreSQL too.
	status, bad := post(urls[1]+"/token", url.Values{"grant_type": {server.GrantTokenExchange}, "subject_token": {subject},
		"subject_token_type": {server.TokenTypeAccessToken}, "resource": {resB}, "scope": {"admin"}}, "rs-a", "rs-a-secret")
	if status != 400 || bad["error"] != "invalid_scope" || bad["access_token"] != nil {
		t.Fatalf("a scope the original lacked: %d %v", status, bad)
	}
	v1, _ := replicas[1].Verifier(resB)
	id, err := v1.Verify(context.Background(), &auth.TokenRequest{Token: exchanged})
	if err != nil {
		t.Fatal(err)
	}
	if a := auth.Actors(id); len(a) != 1 || a[0].Subject != "rs-a" || id.Subject != "ada" {
		t.Fatalf("%+v %+v", id, a)
	}

	// Ada's app revokes its token on the first replica.
	if status, _ := post(urls[0]+"/revoke", url.Values{"token": {subject}, "client_id": {"app"}}); status != 200 {
		t.Fatalf("revoke: %d", status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := stores[1].SyncRevocations(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Verify(context.Background(), &auth.TokenRequest{Token: exchanged}); err == nil {
		t.Fatal("the exchanged token outlived the revoked authorization on the other replica")
	}
	status, x = post(urls[1]+"/token", exchange, "rs-a", "rs-a-secret")
	if status != 400 || x["error"] != "invalid_request" || x["access_token"] != nil {
		t.Fatalf("exchange of a revoked token: %d %v", status, x)
	}
}
