package sake

import (
	"strconv"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
)

// decodeAny decodes a JSON value into the generic form encoding/json
// produces (map[string]any, []any, string, float64, bool, nil), walking it
// with jsonscan: the arguments are validated in this form before they are
// decoded into the tool's argument type.
func decodeAny(v []byte) (any, error) {
	switch jsonscan.Kind(v) {
	case jsonscan.Object:
		m := make(map[string]any)
		var inner error
		err := jsonscan.Members(v, func(key, raw []byte) error {
			x, err := decodeAny(raw)
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
			x, err := decodeAny(raw)
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
