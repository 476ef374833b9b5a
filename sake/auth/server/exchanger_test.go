package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth"
)

func TestExchanger(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange)
	subject, _ := h.userTokens("notes:read notes:write", resourceA)
	x := &Exchanger{TokenEndpoint: h.url(pathToken), ClientID: rsAID, ClientSecret: rsASecret, Now: h.clock.now}
	ctx := context.Background()

	tok, err := x.Exchange(ctx, subject, resourceB, "notes:read")
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "Bearer" || !slices.Equal(tok.Scopes, []string{"notes:read"}) ||
		tok.Expiry.Sub(h.clock.now()) > DefaultAccessTokenTTL || tok.Expiry.Before(h.clock.now()) {
		t.Fatalf("%+v", tok)
	}

	a0, _ := h.issued()
	_, err = x.Exchange(ctx, subject, "https://elsewhere.example/mcp")
	var xe *ExchangeError
	if !errors.As(err, &xe) || xe.Status != 400 || xe.Code != ErrInvalidTarget {
		t.Fatalf("err = %v, want an ExchangeError invalid_target", err)
	}
	bad := *x
	bad.ClientSecret = "wrong"
	if _, err := bad.Exchange(ctx, subject, resourceB); !errors.As(err, &xe) || xe.Code != ErrInvalidClient {
		t.Fatalf("err = %v, want invalid_client", err)
	}
	if _, err := x.Exchange(ctx, "", resourceB); !errors.Is(err, ErrNoCallerToken) {
		t.Fatalf("err = %v, want ErrNoCallerToken", err)
	}
	if _, err := (&Exchanger{}).Exchange(ctx, subject, resourceB); err == nil {
		t.Fatal("an Exchanger without endpoint exchanged")
	}
	if a1, _ := h.issued(); a1 != a0 {
		t.Fatal("refused exchanges issued tokens")
	}
}

func TestCallerAuthorizer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange)
	subject, _ := h.userTokens("notes:read", resourceA)
	va, _ := h.as.Verifier(resourceA)
	id, err := va.Verify(context.Background(), &auth.TokenRequest{Token: subject})
	if err != nil {
		t.Fatal(err)
	}
	x := &Exchanger{TokenEndpoint: h.url(pathToken), ClientID: rsAID, ClientSecret: rsASecret, Now: h.clock.now}
	a := x.For(id, resourceB)
	authorize := func() string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, resourceB, nil)
		if err := a.Authorize(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		return req.Header.Get("Authorization")
	}
	first := authorize()
	if _, err := h.verify(first[len("Bearer "):], resourceB); err != nil {
		t.Fatalf("the authorizer's token: %v", err)
	}
	if authorize() != first {
		t.Fatal("a token still valid was exchanged again")
	}
	// A 401 drops it once; a 403 or a second 401 is final.
	resp := &http.Response{StatusCode: http.StatusUnauthorized}
	if retry, _ := a.Challenged(context.Background(), nil, resp, 0); !retry {
		t.Fatal("no retry after the first 401")
	}
	second := authorize()
	if second == first {
		t.Fatal("the refused token was sent again")
	}
	if retry, _ := a.Challenged(context.Background(), nil, resp, 1); retry {
		t.Fatal("a retry after the second 401")
	}
	if retry, _ := a.Challenged(context.Background(), nil, &http.Response{StatusCode: http.StatusForbidden}, 0); retry {
		t.Fatal("a retry after a 403")
	}
	// Near its expiry, a new exchange; past the subject token's, an error.
	h.clock.add(DefaultAccessTokenTTL - 5*time.Second)
	if authorize() == second {
		t.Fatal("a token about to expire was sent again")
	}
	h.clock.add(5 * time.Second)
	req, _ := http.NewRequest(http.MethodPost, resourceB, nil)
	var xe *ExchangeError
	if err := a.Authorize(context.Background(), req); !errors.As(err, &xe) || xe.Code != ErrInvalidRequest {
		t.Fatalf("Authorize with an expiring subject token: %v", err)
	}
}
