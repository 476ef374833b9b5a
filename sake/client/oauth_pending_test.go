package client_test

import (
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
)

// TestPendingSignInCompletesInAnotherProcess: a sign-in begun by one
// authorizer, written with MarshalBinary and read back with
// UnmarshalBinary, completes with another authorizer that never
// registered at the authorization server (another replica); bytes that
// are not a written PendingSignIn are refused.
func TestPendingSignInCompletesInAnotherProcess(t *testing.T) {
	t.Parallel()
	resource := protectedServer(t)
	redirect := "http://127.0.0.1:9/callback"
	p, err := client.OAuth(client.OAuthConfig{RedirectURL: redirect}).BeginSignIn(t.Context(), resource)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var read client.PendingSignIn
	if err := read.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if read.URL != p.URL || read.State != p.State || read.Resource != p.Resource || read.Issuer != p.Issuer {
		t.Fatalf("read %+v, want %+v", read, *p)
	}
	back, err := consentingBrowser(redirect)(t.Context(), p.URL)
	if err != nil {
		t.Fatal(err)
	}
	store := client.MemoryTokenStore()
	other := client.OAuth(client.OAuthConfig{RedirectURL: redirect, Store: store})
	if _, err := other.CompleteSignIn(t.Context(), &read, back); err != nil {
		t.Fatalf("completing in another authorizer: %v", err)
	}
	if tok, _ := store.Load(t.Context(), resource); tok == nil || tok.AccessToken == "" {
		t.Fatal("no token kept")
	}
	for _, bad := range [][]byte{nil, {}, {9, '{', '}'}, append([]byte{1}, "{}"...), append([]byte{1}, "not json"...)} {
		var q client.PendingSignIn
		if err := q.UnmarshalBinary(bad); !errors.Is(err, client.ErrAuthorization) {
			t.Errorf("UnmarshalBinary(%q) = %v, want ErrAuthorization", bad, err)
		}
	}
	if _, err := (&client.PendingSignIn{State: "x"}).MarshalBinary(); !errors.Is(err, client.ErrAuthorization) {
		t.Errorf("MarshalBinary of a PendingSignIn not begun: %v", err)
	}
}
