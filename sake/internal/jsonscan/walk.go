package jsonscan

import "strconv"

// Walk decodes v member by member with Members and Elements. Each
// nested value is scanned again by the walker of each container around it,
// so decoders use it only for values that are not containers; it is
// also what the one-pass decoder is tested against.
func Walk(v []byte) (any, error) {
	switch Kind(v) {
	case Object:
		m := make(map[string]any)
		var inner error
		err := Members(v, func(key, raw []byte) error {
			x, err := Walk(raw)
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
	case Array:
		var out []any
		var inner error
		err := Elements(v, func(raw []byte) error {
			x, err := Walk(raw)
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
	case String:
		return Unquote(v)
	case Number:
		return strconv.ParseFloat(string(v), 64)
	case True:
		return true, nil
	case False:
		return false, nil
	case Null:
		return nil, nil
	}
	return nil, &SyntaxError{Msg: "not a JSON value"}
}
