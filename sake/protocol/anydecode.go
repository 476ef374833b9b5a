package protocol

import (
	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
)

// DecodeAny decodes a JSON value into the generic form encoding/json
// produces (map[string]any, []any, string, float64, bool, nil), objects
// and arrays in one pass.
func DecodeAny(v []byte) (any, error) {
	switch jsonscan.Kind(v) {
	case jsonscan.Object, jsonscan.Array:
		return jsonscan.Decoder{}.Decode(v)
	}
	return jsonscan.Walk(v)
}
