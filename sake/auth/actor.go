package auth

import (
	"errors"
	"fmt"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// DefaultMaxActorDepth bounds the act chain of a token (RFC 8693 §4.1)
// when JWTConfig.MaxActorDepth is zero: a token acted on through more
// exchanges than this is refused (invalid_token). The introspection
// verifier applies it too.
const DefaultMaxActorDepth = 4

// Actor is one party of a token's act chain (RFC 8693 §4.1): a service
// that obtained the token by token exchange and now acts for the token's
// subject, the person in protocol.Identity.Subject.
type Actor struct {
	// Subject is the actor's sub: for Sake's authorization server, the
	// client id of the resource server that exchanged the token.
	Subject string
	// Issuer is the actor's iss, when the token names one.
	Issuer string
	// Claims are the members of this level of the act claim, without its
	// nested act.
	Claims map[string]any
}

// Actors returns the act chain of id (RFC 8693 §4.1): first the party
// acting now (the one the token was last exchanged for), then the one it
// acted for, and so on back to the first service that exchanged the
// person's token. It is nil when the caller acts for itself, with a token
// the person's own client obtained. The verifiers of this package refuse
// a malformed chain and one deeper than their MaxActorDepth, so what
// Actors returns for their identities is well formed.
func Actors(id *protocol.Identity) []Actor {
	if id == nil {
		return nil
	}
	chain, _ := actorChain(id.Claims["act"], -1)
	return chain
}

// actorChain reads the act claim v (nil: none) and its nested acts,
// current actor first. A chain deeper than max (max < 0: unbounded), a
// level that is not an object, or one without a non-empty string sub is
// an error. Nested acts of a level other than the last are its prior
// actors; anything else at a level is kept in Claims.
func actorChain(v any, max int) ([]Actor, error) {
	var chain []Actor
	for v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("act is not an object")
		}
		if max >= 0 && len(chain) == max {
			return nil, fmt.Errorf("the act chain is deeper than %d", max)
		}
		sub, ok := m["sub"].(string)
		if !ok || sub == "" {
			return nil, errors.New("an act level has no sub")
		}
		iss, _ := m["iss"].(string)
		if raw, has := m["iss"]; has && raw != nil {
			if _, isString := raw.(string); !isString {
				return nil, errors.New("an act level's iss is not a string")
			}
		}
		claims := make(map[string]any, len(m))
		for k, x := range m {
			if k != "act" {
				claims[k] = x
			}
		}
		chain = append(chain, Actor{Subject: sub, Issuer: iss, Claims: claims})
		v = m["act"]
	}
	return chain, nil
}

// checkActors refuses (invalid_token) a token whose act claim is
// malformed or deeper than max.
func checkActors(claims map[string]any, max int) error {
	v, ok := claims["act"]
	if !ok {
		return nil
	}
	if v == nil {
		return InvalidToken(errors.New("act is null"))
	}
	if _, err := actorChain(v, max); err != nil {
		return InvalidToken(err)
	}
	return nil
}
