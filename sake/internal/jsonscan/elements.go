package jsonscan

import "errors"

// ErrNotArray is returned by Elements for valid JSON that is not an array.
var ErrNotArray = errors.New("jsonscan: not a JSON array")

// Elements calls fn for each element of the JSON array in b, in order,
// with the element's raw value (a sub-slice of b without surrounding
// whitespace). Like Members, it validates the whole of b first and calls
// fn only if b is valid; it returns a *SyntaxError for invalid input and
// ErrNotArray for valid JSON that is not an array. If fn returns an error,
// Elements stops and returns it. It does not allocate.
func Elements(b []byte, fn func(value []byte) error) error {
	s := scanner{b: b}
	start := skipWS(b, 0)
	end := s.value(start, 0)
	if end < 0 {
		return s.err()
	}
	if j := skipWS(b, end); j < len(b) {
		s.fail(j, ctxTopLevel)
		return s.err()
	}
	if b[start] != '[' {
		return ErrNotArray
	}
	// b is valid: walk the elements, letting value find each one's end.
	i := skipWS(b, start+1)
	if b[i] == ']' {
		return nil
	}
	for {
		e := s.value(i, 1)
		if err := fn(b[i:e]); err != nil {
			return err
		}
		i = skipWS(b, e)
		if b[i] == ']' {
			return nil
		}
		i = skipWS(b, i+1) // past the comma
	}
}
