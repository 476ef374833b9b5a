package jsonscan

import "bytes"

// Walking text already known to be valid JSON (a value inside a message
// that [Members] has validated) needs no validation again: only the end of
// each value. Strings, where long text lies, are skipped by searching for
// their closing quote, which is much faster than checking every byte.

// MembersValid is [Members] for b already known to be valid JSON: it calls
// fn for each member of the object in b without validating b again, and
// returns fn's error. If b is not an object it does nothing. Given text
// that is not valid JSON it neither fails nor reads outside b, but what it
// passes to fn is then unspecified.
func MembersValid(b []byte, fn func(key, value []byte) error) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	i = skipWS(b, i+1)
	for i < len(b) && b[i] == '"' {
		ke := skipString(b, i)
		key := b[i+1 : max(ke-1, i+1)]
		if bytes.IndexByte(key, '\\') >= 0 {
			// Escapes are checked before they are decoded.
			if s := (scanner{b: b}); s.str(i) != ke {
				return nil
			}
			key = appendUnescaped(make([]byte, 0, len(key)), key)
		}
		i = skipWS(b, ke)
		if i < len(b) && b[i] == ':' {
			i++
		}
		vs := skipWS(b, i)
		ve := SkipValid(b, vs)
		if err := fn(key, b[vs:ve]); err != nil {
			return err
		}
		i = skipWS(b, ve)
		if i >= len(b) || b[i] != ',' {
			return nil
		}
		i = skipWS(b, i+1)
	}
	return nil
}

// SkipValid returns the offset just past the JSON value that starts at
// b[i], for b known to be valid JSON. It never returns more than len(b).
func SkipValid(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	// A number or a literal ends at a delimiter.
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// skipString returns the offset just past the string whose opening quote
// is b[i], or len(b) if it does not end.
func skipString(b []byte, i int) int {
	if q := closingQuote(b, i); q >= 0 {
		return q + 1
	}
	return len(b)
}

// closingQuote returns the offset of the quote that ends the string
// opened at b[i] (the first quote not escaped by an odd run of
// backslashes), or -1 if there is none.
func closingQuote(b []byte, i int) int {
	for j := i + 1; j <= len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1
		}
		q += j
		k := q
		for k > j && b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q
		}
		j = q + 1
	}
	return -1
}
