// Package jsonscan walks JSON text without decoding it into Go values.
//
// It exists for the hot path of a JSON-RPC server, where every incoming
// message must be inspected before it is dispatched. Instead of building
// maps or reflecting into structs as encoding/json does, [Members] validates
// a message and hands its top-level object members to a callback as
// sub-slices of the original input; only the members the caller cares about
// are then decoded further, for example with [Unquote] or encoding/json.
//
// The scanner is hand-written, validates strict JSON as described by
// RFC 8259 (the same language that encoding/json accepts, including its
// nesting limit of 10000), and allocates nothing on the success path:
// [Valid] never allocates, and [Members] allocates only to unescape object
// keys that contain backslash escapes.
//
// Like encoding/json's validator, this package does not check that strings
// are valid UTF-8; bytes are passed through unchanged. In particular
// [Unquote] and [UnquoteBytes] do not replace invalid UTF-8 with U+FFFD,
// which is the one place where their results can differ from unmarshalling
// into a Go string with encoding/json.
package jsonscan
