package state

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/sakemcp/sake-go/sake"
)

// handlePrefix starts every handle, so that one is recognisable in logs
// and a value of another kind is refused before any work.
const handlePrefix = "sh1_"

// NewHandle makes a new, empty scope and the handle that names it: the
// tool returns the handle to the agent, which passes it back in later
// calls. The handle is signed and bound to the caller's identity (or to
// anonymity for an anonymous caller), so only this caller can use it.
func (s *State) NewHandle(ctx *sake.Context) (string, *Scope, error) {
	return s.NewHandleFor(ctx.Identity())
}

// NewHandleFor is NewHandle for an identity, outside any call (tests).
func (s *State) NewHandleFor(id *sake.Identity) (string, *Scope, error) {
	raw := make([]byte, 18)
	if _, err := rand.Read(raw); err != nil {
		return "", nil, err
	}
	hid := base64.RawURLEncoding.EncodeToString(raw)
	h := handlePrefix + hid + "." + s.sign(hid, id)
	return h, s.scope("h:" + hid), nil
}

// Handle returns the scope a handle names, or ErrBadHandle when the
// handle was not made by this server's key for this caller.
func (s *State) Handle(ctx *sake.Context, handle string) (*Scope, error) {
	return s.HandleFor(ctx.Identity(), handle)
}

// HandleFor is Handle for an identity, outside any call (tests).
func (s *State) HandleFor(id *sake.Identity, handle string) (*Scope, error) {
	rest, ok := strings.CutPrefix(handle, handlePrefix)
	if !ok || len(rest) > 128 {
		return nil, ErrBadHandle
	}
	hid, sig, ok := strings.Cut(rest, ".")
	if !ok || hid == "" {
		return nil, ErrBadHandle
	}
	if !hmac.Equal([]byte(sig), []byte(s.sign(hid, id))) {
		return nil, ErrBadHandle
	}
	return s.scope("h:" + hid), nil
}

// sign is the handle id's MAC under the key, bound to the identity's
// user key ("" for an anonymous caller).
func (s *State) sign(hid string, id *sake.Identity) string {
	owner, _ := s.userKey(id)
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("sake/state handle\x00"))
	m.Write([]byte(hid))
	m.Write([]byte{0})
	m.Write([]byte(owner))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:20])
}
