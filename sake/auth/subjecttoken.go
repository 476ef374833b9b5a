package auth

import (
	"runtime"
	"sync"
	"weak"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// kept holds the access tokens verifiers were asked to keep, by the
// identity they established: a weak key, so an entry lives exactly as
// long as its identity (the request it belongs to) and is dropped when
// the identity is collected. Nothing else can reach a kept token.
var kept sync.Map // weak.Pointer[protocol.Identity] -> string

// keepToken remembers token as the one id was established from.
func keepToken(id *protocol.Identity, token string) {
	key := weak.Make(id)
	kept.Store(key, token)
	runtime.AddCleanup(id, func(k weak.Pointer[protocol.Identity]) { kept.Delete(k) }, key)
}

// TokenOf returns the access token id was verified from, for a tool that
// exchanges its caller's token to call another service as the caller
// (RFC 8693 token exchange; see server.Exchanger in sake/auth/server).
// It is "" unless the verifier kept the token: JWTConfig.KeepToken, or a
// verifier of sake/auth/server for a resource whose server may exchange
// tokens. The token is held in memory only, for as long as the identity
// itself, and is never part of the identity's fields or claims, so
// logging an identity never logs it.
func TokenOf(id *protocol.Identity) string {
	if id == nil {
		return ""
	}
	v, ok := kept.Load(weak.Make(id))
	if !ok {
		return ""
	}
	return v.(string)
}
