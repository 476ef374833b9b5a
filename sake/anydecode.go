package sake

import (
	"sync"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// decodeAnyKeys is protocol.DecodeAny sharing the object keys found in keys (each
// mapped to itself). Objects and arrays are decoded in one pass; a value
// that is neither (arguments never are) is decoded by jsonscan.Walk.
func decodeAnyKeys(v []byte, keys map[string]string) (any, error) {
	switch jsonscan.Kind(v) {
	case jsonscan.Object, jsonscan.Array:
		return jsonscan.Decoder{Keys: keys}.Decode(v)
	}
	return protocol.DecodeAny(v)
}

// decodeArgs decodes a tool's arguments with decodeAnyKeys; checked says
// they lie inside a message already validated, so that strings are found
// by their closing quote instead of being checked byte by byte again. An
// object's members go into into when it is not nil (see argMaps).
func decodeArgs(v []byte, keys map[string]string, checked bool, into map[string]any) (any, error) {
	switch jsonscan.Kind(v) {
	case jsonscan.Object, jsonscan.Array:
		return jsonscan.Decoder{Keys: keys, Valid: checked, Into: into}.Decode(v)
	}
	return protocol.DecodeAny(v)
}

// argMaps holds empty maps for the arguments of tools whose argument is
// a struct: the generic map is only read, to validate and then fill the
// struct, so it is cleared and reused instead of allocated per call.
var argMaps = sync.Pool{New: func() any { return make(map[string]any, 8) }}

// maxPooledArgs is the most members a map may have held to be reused: a
// map keeps the room it grew to.
const maxPooledArgs = 32

// putArgMap clears m and keeps it for another call, unless it grew large.
func putArgMap(m map[string]any) {
	if len(m) > maxPooledArgs {
		return
	}
	clear(m)
	argMaps.Put(m)
}
