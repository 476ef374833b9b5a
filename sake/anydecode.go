package sake

import (
	"strconv"
	"sync"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
)

// decodeAny decodes a JSON value into the generic form encoding/json
// produces (map[string]any, []any, string, float64, bool, nil): the
// arguments are validated in this form before they fill the tool's
// argument type.
func decodeAny(v []byte) (any, error) { return decodeAnyKeys(v, nil) }

// decodeAnyKeys is decodeAny sharing the object keys found in keys (each
// mapped to itself). Objects and arrays are decoded in one pass; a value
// that is neither (arguments never are) is decoded by decodeWalk.
func decodeAnyKeys(v []byte, keys map[string]string) (any, error) {
	switch jsonscan.Kind(v) {
	case jsonscan.Object, jsonscan.Array:
		return jsonscan.Decoder{Keys: keys}.Decode(v)
	}
	return decodeWalk(v)
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
	return decodeWalk(v)
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

// decodeWalk decodes v member by member with jsonscan's walkers. Each
// nested value is scanned again by the walker of each container around it,
// so decodeAnyKeys uses it only for values that are not containers; it is
// also what the one-pass decoder is tested against.
func decodeWalk(v []byte) (any, error) {
	switch jsonscan.Kind(v) {
	case jsonscan.Object:
		m := make(map[string]any)
		var inner error
		err := jsonscan.Members(v, func(key, raw []byte) error {
			x, err := decodeWalk(raw)
			if err != nil {
				inner = err
				return err
			}
			m[string(key)] = x
			return nil
		})
		if inner != nil {
			return nil, inner
		}
		return m, err
	case jsonscan.Array:
		var out []any
		var inner error
		err := jsonscan.Elements(v, func(raw []byte) error {
			x, err := decodeWalk(raw)
			if err != nil {
				inner = err
				return err
			}
			out = append(out, x)
			return nil
		})
		if inner != nil {
			return nil, inner
		}
		if out == nil {
			out = []any{}
		}
		return out, err
	case jsonscan.String:
		return jsonscan.Unquote(v)
	case jsonscan.Number:
		return strconv.ParseFloat(string(v), 64)
	case jsonscan.True:
		return true, nil
	case jsonscan.False:
		return false, nil
	case jsonscan.Null:
		return nil, nil
	}
	return nil, &jsonscan.SyntaxError{Msg: "not a JSON value"}
}
