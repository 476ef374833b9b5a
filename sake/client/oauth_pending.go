package client

import (
	"encoding/json"
	"fmt"
)

// pendingVersion prefixes the bytes of a PendingSignIn, so that their
// format can change.
const pendingVersion = 1

// pendingWire is a PendingSignIn as MarshalBinary writes it.
type pendingWire struct {
	URL       string   `json:"url"`
	State     string   `json:"state"`
	Resource  string   `json:"resource"`
	Issuer    string   `json:"issuer"`
	Verifier  string   `json:"verifier"`
	Redirect  string   `json:"redirect"`
	Scopes    []string `json:"scopes,omitempty"`
	AuthURL   string   `json:"authorizationEndpoint,omitempty"`
	TokenURL  string   `json:"tokenEndpoint"`
	AuthMeths []string `json:"tokenAuthMethods,omitempty"`
	Iss       bool     `json:"issSupported,omitempty"`
	ClientID  string   `json:"clientID"`
	Secret    string   `json:"clientSecret,omitempty"`
	AuthMeth  string   `json:"authMethod,omitempty"`
}

// MarshalBinary writes p whole, its PKCE verifier and the client's
// credentials included, for a program whose callback may land in another
// process than the one that began the sign-in (replicas): the bytes are a
// secret, so seal them before they leave the program (the gateway seals
// them with its token vault's key), and give them back to UnmarshalBinary
// in the process that completes the sign-in.
func (p *PendingSignIn) MarshalBinary() ([]byte, error) {
	if p == nil || p.as == nil || p.cl == nil {
		return nil, fmt.Errorf("%w: only a PendingSignIn that BeginSignIn returned can be written", ErrAuthorization)
	}
	b, err := json.Marshal(pendingWire{URL: p.URL, State: p.State, Resource: p.Resource, Issuer: p.Issuer,
		Verifier: p.verifier, Redirect: p.redirect, Scopes: p.scopes,
		AuthURL: p.as.authorizationEndpoint, TokenURL: p.as.tokenEndpoint, AuthMeths: p.as.tokenAuthMethods, Iss: p.as.issSupported,
		ClientID: p.cl.clientID, Secret: p.cl.secret, AuthMeth: p.cl.authMethod})
	if err != nil {
		return nil, err
	}
	return append([]byte{pendingVersion}, b...), nil
}

// UnmarshalBinary reads into p a PendingSignIn that MarshalBinary wrote:
// CompleteSignIn then completes it as in the process that began it.
func (p *PendingSignIn) UnmarshalBinary(b []byte) error {
	if len(b) < 1 || b[0] != pendingVersion {
		return fmt.Errorf("%w: not a PendingSignIn that MarshalBinary wrote", ErrAuthorization)
	}
	var w pendingWire
	if err := json.Unmarshal(b[1:], &w); err != nil {
		return fmt.Errorf("%w: reading a PendingSignIn: %w", ErrAuthorization, err)
	}
	if w.State == "" || w.Verifier == "" || w.Issuer == "" || w.TokenURL == "" || w.ClientID == "" {
		return fmt.Errorf("%w: a PendingSignIn without its state, verifier, issuer, token endpoint or client", ErrAuthorization)
	}
	*p = PendingSignIn{URL: w.URL, State: w.State, Resource: w.Resource, Issuer: w.Issuer,
		verifier: w.Verifier, redirect: w.Redirect, scopes: w.Scopes,
		as: &asMeta{issuer: w.Issuer, authorizationEndpoint: w.AuthURL, tokenEndpoint: w.TokenURL,
			tokenAuthMethods: w.AuthMeths, issSupported: w.Iss, documented: true},
		cl: &registration{clientID: w.ClientID, secret: w.Secret, authMethod: w.AuthMeth}}
	return nil
}
