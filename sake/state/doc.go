// Package state keeps values that outlive one call: state that belongs to
// the signed-in user, to a 2025-11-25 session, or to a handle a tool hands
// to the agent and the agent passes back. It works the same in both
// protocol eras and, with a shared store such as sake/state/pgstate, across
// replicas.
//
// A server holds one *State, usually in a field of its struct, and a tool
// picks the scope it needs from its context:
//
//	type Shop struct{ State *state.State }
//
//	func (s *Shop) AddToCart(ctx *sake.Context, a AddArgs) (string, error) {
//		user, err := s.State.User(ctx) // state.ErrNoIdentity for an anonymous caller
//		if err != nil {
//			return "", err
//		}
//		cart, err := state.Update(ctx, user, "cart", func(c []string, _ bool) ([]string, error) {
//			return append(c, a.Item), nil
//		})
//		...
//	}
//
// # Scopes
//
//   - User: the caller's identity as its token established it. The key is
//     the token's issuer, its tenant (the first of Config.TenantClaims the
//     token carries: Entra's tid, tenant, tenant_id, org_id by default) and
//     its owner (the subject, or the client id of a machine client), so two
//     tenants' identical subjects never share a value. An anonymous caller
//     has no user scope: User answers ErrNoIdentity.
//   - Session: the legacy (2025-11-25 and earlier) session the call belongs
//     to. The 2026-07-28 era has no session: Session answers ErrNoSession,
//     whose message names the two scopes that work in both eras.
//   - Handle: NewHandle makes an opaque handle that the tool returns to the
//     agent, which passes it back in a later call (in either era, on any
//     replica). The handle is signed with Config.Key and bound to the
//     identity that made it: a forged, altered or guessed handle, or one
//     presented by another caller, is refused with ErrBadHandle.
//
// # Values, time and bounds
//
// Get, Set and Update are typed: values are stored as JSON. Every value
// lives for the scope's TTL after its last write (Config.TTL, 24 hours by
// default; Scope.WithTTL changes it for one scope value). The bounds in
// Limits hold per value, per key and per scope, and the memory store also
// bounds its total size; a write past a bound fails with ErrTooLarge or
// ErrFull and changes nothing.
//
// # Concurrent writers
//
// Set is last-write-wins. Update is compare-and-set: it reads the value and
// its version, applies the function and writes on condition that the
// version is unchanged, retrying with the newer value when another writer
// came first (up to 16 times, then ErrConflict). Two replicas updating the
// same key through a shared store therefore never lose an update.
//
// # Tests
//
// A test presets or inspects a user's state with UserOf, outside any call,
// and connects to the server with saketest as usual.
package state
