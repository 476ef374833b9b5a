package uritemplate

import (
	"strings"
	"unicode/utf8"
)

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) remove(c byte)   { s[c>>6] &^= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

type matchKind uint8

const (
	matchLiteral matchKind = iota
	matchUnnamed           // simple, +, #, . and / expressions
	matchNamed             // a ; expression, or a run of ? and & expressions
)

// matcher is one step of Match: a literal, or the span of URI produced by
// one expression (or by a run of adjacent query expressions).
type matcher struct {
	kind    matchKind
	lit     string    // literal as written (matchLiteral)
	enc     string    // literal as expanded (matchLiteral)
	op      *operator // operator of the (first) expression
	first   byte      // required first byte of a non-empty span, 0 for none
	sep     byte      // separator between values or parameters
	vars    []varSpec
	allowed byteSet // bytes a span may contain after its first byte
}

// buildMatchers regroups parts for matching and decides, per expression,
// which bytes its span may contain.
func buildMatchers(parts []part) []matcher {
	var ms []matcher
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		switch {
		case p.op == nil:
			ms = append(ms, matcher{kind: matchLiteral, lit: p.lit, enc: p.enc})
		case p.op == opQuery || p.op == opCont:
			m := matcher{kind: matchNamed, op: p.op, first: p.op.first, sep: '&'}
			m.vars = append(m.vars, p.vars...)
			for i+1 < len(parts) && parts[i+1].op == opCont {
				i++
				m.vars = append(m.vars, parts[i].vars...)
			}
			ms = append(ms, m)
		case p.op.named:
			ms = append(ms, matcher{kind: matchNamed, op: p.op, first: p.op.first, sep: p.op.sep, vars: p.vars})
		default:
			ms = append(ms, matcher{kind: matchUnnamed, op: p.op, first: p.op.first, sep: p.op.sep, vars: p.vars})
		}
	}

	// Walk right to left so each expression knows whether a query or a
	// fragment follows it, and which operator bytes can start the span of
	// the expressions directly after it.
	laterQuery, laterFragment := false, false
	var followers byteSet
	for i := len(ms) - 1; i >= 0; i-- {
		m := &ms[i]
		if m.kind == matchLiteral {
			followers = byteSet{}
			if strings.ContainsRune(m.lit, '?') || strings.ContainsRune(m.enc, '?') {
				laterQuery = true
			}
			if strings.ContainsRune(m.lit, '#') || strings.ContainsRune(m.enc, '#') {
				laterFragment = true
			}
			continue
		}
		m.allowed = byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		switch m.op {
		case opSimple, opLabel, opParam:
			m.allowed.remove('/')
			m.allowed.remove('?')
			m.allowed.remove('#')
		case opPath:
			m.allowed.remove('?')
			m.allowed.remove('#')
			if !needsSeparator(m.vars) {
				m.allowed.remove('/')
			}
		case opReserved, opFragment:
			if laterQuery {
				m.allowed.remove('?')
			}
			if laterFragment {
				m.allowed.remove('#')
			}
		case opQuery, opCont:
			m.allowed.remove('#')
		}
		if !m.op.reserved {
			// A value of a non-reserved operator never contains a raw
			// reserved character, so the span stops where a following
			// expression introduced by such a character begins ("{/p}{;q}").
			for c := 0; c < 256; c++ {
				b := byte(c)
				if followers.has(b) && reservedSet.has(b) && !(b == m.sep && needsSeparator(m.vars)) {
					m.allowed.remove(b)
				}
			}
		}
		if m.first != 0 {
			followers.add(m.first)
		}
		switch m.op {
		case opQuery, opCont:
			laterQuery = true
		case opFragment:
			laterFragment = true
		}
	}
	return ms
}

// needsSeparator reports whether the values of an expression are joined by
// its separator: only with several variables or an exploded one.
func needsSeparator(vars []varSpec) bool {
	if len(vars) > 1 {
		return true
	}
	for _, v := range vars {
		if v.explode {
			return true
		}
	}
	return false
}

// reach is a bit matrix: bit (i, p) is set when matchers i.. can match
// uri[p:].
type reach struct {
	bits []uint64
	cols int
}

func (r reach) get(i, p int) bool {
	k := i*r.cols + p
	return r.bits[k>>6]&(1<<(k&63)) != 0
}

func (r reach) set(i, p int) {
	k := i*r.cols + p
	r.bits[k>>6] |= 1 << (k & 63)
}

// Match reports whether uri could have been produced by expanding the
// template, and if so returns the percent-decoded variable values. Variables
// that the URI leaves undefined are absent from the map. On success the map
// is never nil.
//
// Literal parts must match exactly. A simple {var} or {/var} value never
// contains '/'; {+var} and {#var} values may. Query expressions {?x,y} and
// {&z} match their parameters in any order, and parameters may be absent.
// The package documentation lists the rules used where expansion is
// ambiguous (several variables in one expression, explode and prefix
// modifiers, repeated variables).
//
// Match does not use regular expressions or backtracking: it takes time and
// memory proportional to len(uri) times the size of the template, and does
// not panic on any input.
func (t *Template) Match(uri string) (map[string]string, bool) {
	if t == nil {
		return nil, false
	}
	ms := t.matchers
	n := len(uri)

	// Cheap rejections before any allocation.
	if len(ms) == 0 {
		if n != 0 {
			return nil, false
		}
		return map[string]string{}, true
	}
	if m := &ms[0]; m.kind == matchLiteral &&
		!strings.HasPrefix(uri, m.lit) && !strings.HasPrefix(uri, m.enc) {
		return nil, false
	}
	if m := &ms[len(ms)-1]; m.kind == matchLiteral &&
		!strings.HasSuffix(uri, m.lit) && !strings.HasSuffix(uri, m.enc) {
		return nil, false
	}

	// Backward pass: reach.get(i, p) tells whether matchers i.. can
	// consume exactly uri[p:]. Every expression span is a byte run from its
	// allowed set (optionally introduced by its first byte), so each row is
	// computed in one right-to-left sweep.
	var stack [32]uint64
	r := reach{cols: n + 1}
	words := ((len(ms)+1)*(n+1) + 63) / 64
	if words <= len(stack) {
		r.bits = stack[:words]
	} else {
		r.bits = make([]uint64, words)
	}
	r.set(len(ms), n)
	for i := len(ms) - 1; i >= 0; i-- {
		m := &ms[i]
		if m.kind == matchLiteral {
			for p := 0; p <= n; p++ {
				if p+len(m.lit) <= n && r.get(i+1, p+len(m.lit)) && literalAt(uri, p, m.lit) ||
					m.enc != m.lit && p+len(m.enc) <= n && r.get(i+1, p+len(m.enc)) && literalAt(uri, p, m.enc) {
					r.set(i, p)
				}
			}
			continue
		}
		// run: a (possibly empty) run of allowed bytes starting at p ends
		// where matcher i+1 can continue; runNext is run at p+1.
		runNext := false
		for p := n; p >= 0; p-- {
			next := r.get(i+1, p)
			run := next || p < n && m.allowed.has(uri[p]) && runNext
			ok := run
			if m.first != 0 {
				ok = next || p < n && uri[p] == m.first && runNext
			}
			if ok {
				r.set(i, p)
			}
			runNext = run
		}
	}
	if !r.get(0, 0) {
		return nil, false
	}

	// Forward pass: walk the matchers, giving each expression the longest
	// span from which the rest of the template still matches.
	res := make(map[string]string, len(t.names))
	p := 0
	for i := range ms {
		m := &ms[i]
		if m.kind == matchLiteral {
			if literalAt(uri, p, m.lit) && r.get(i+1, p+len(m.lit)) {
				p += len(m.lit)
			} else {
				p += len(m.enc)
			}
			continue
		}
		e := -1
		q := p
		if m.first != 0 {
			q = -1
			if p < n && uri[p] == m.first {
				q = p + 1
			}
		}
		if q >= 0 {
			end := q
			for end < n && m.allowed.has(uri[end]) {
				end++
			}
			for x := end; x >= q; x-- {
				if r.get(i+1, x) {
					e = x
					break
				}
			}
		}
		if e < 0 {
			e = p // the empty span; the backward pass guarantees it fits
		}
		var ok bool
		if m.kind == matchNamed {
			ok = assignNamed(res, m, uri[p:e])
		} else {
			ok = assignUnnamed(res, m, uri[p:e])
		}
		if !ok {
			return nil, false
		}
		p = e
	}
	return res, true
}

func literalAt(s string, p int, lit string) bool {
	return len(s)-p >= len(lit) && s[p:p+len(lit)] == lit
}

// assignUnnamed decomposes the span of a simple, +, #, . or / expression.
func assignUnnamed(res map[string]string, m *matcher, span string) bool {
	if span == "" {
		return true // every variable undefined
	}
	rest := span
	if m.first != 0 {
		rest = span[1:]
	}
	for j := range m.vars {
		v := &m.vars[j]
		last := j == len(m.vars)-1
		piece, more := rest, false
		if !last {
			if k := strings.IndexByte(rest, m.sep); k >= 0 {
				piece, rest, more = rest[:k], rest[k+1:], true
			}
		}
		var val string
		var ok bool
		switch {
		case last && v.explode && m.sep != ',':
			val, ok = decodeJoin(piece, m.sep)
		case last && m.op == opPath && strings.IndexByte(piece, '/') >= 0:
			return false
		default:
			val, ok = decode(piece)
		}
		if !ok || !setVar(res, v, val) {
			return false
		}
		if !last && !more {
			break // fewer pieces than variables: the rest are undefined
		}
	}
	return true
}

// assignNamed decomposes the span of a ; expression or a query run:
// name[=value] pairs separated by m.sep, in any order.
func assignNamed(res map[string]string, m *matcher, span string) bool {
	if len(span) <= 1 {
		return true
	}
	body := span[1:]
	var seenBuf [16]bool
	var seen []bool
	if len(m.vars) <= len(seenBuf) {
		seen = seenBuf[:len(m.vars)]
	} else {
		seen = make([]bool, len(m.vars))
	}
	var lists [][]string // values of exploded variables, allocated lazily
	for {
		pair, rest, more := body, "", false
		if k := strings.IndexByte(body, m.sep); k >= 0 {
			pair, rest, more = body[:k], body[k+1:], true
		}
		name, value, _ := strings.Cut(pair, "=")
		j := -1
		for x := range m.vars {
			if m.vars[x].name == name {
				j = x
				break
			}
		}
		if j < 0 {
			return false // not a variable of this expression
		}
		val, ok := decode(value)
		if !ok {
			return false
		}
		v := &m.vars[j]
		if v.explode {
			if lists == nil {
				lists = make([][]string, len(m.vars))
			}
			lists[j] = append(lists[j], val)
		} else {
			if seen[j] || !setVar(res, v, val) {
				return false
			}
		}
		seen[j] = true
		if !more {
			break
		}
		body = rest
	}
	for j, list := range lists {
		if list != nil && !setVar(res, &m.vars[j], strings.Join(list, ",")) {
			return false
		}
	}
	return true
}

// setVar records a matched value, enforcing prefix lengths and consistency
// between repeated occurrences of a variable.
func setVar(res map[string]string, v *varSpec, val string) bool {
	if v.prefix > 0 && utf8.RuneCountInString(val) > v.prefix {
		return false
	}
	if v.shared {
		if old, ok := res[v.name]; ok {
			switch {
			case old == val:
				return true
			case v.loose && strings.HasPrefix(old, val):
				return true
			case v.loose && strings.HasPrefix(val, old):
				// keep the longer value
			default:
				return false
			}
		}
	}
	res[v.name] = val
	return true
}

// decode percent-decodes s. It reports false for a malformed escape.
func decode(s string) (string, bool) {
	k := strings.IndexByte(s, '%')
	if k < 0 {
		return s, true
	}
	buf := make([]byte, 0, len(s))
	buf = append(buf, s[:k]...)
	for i := k; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			buf = append(buf, c)
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		buf = append(buf, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(buf), true
}

// decodeJoin splits s at sep, decodes each item and joins them with ','.
func decodeJoin(s string, sep byte) (string, bool) {
	if strings.IndexByte(s, sep) < 0 {
		return decode(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; ; i++ {
		item, rest, more := s, "", false
		if k := strings.IndexByte(s, sep); k >= 0 {
			item, rest, more = s[:k], s[k+1:], true
		}
		val, ok := decode(item)
		if !ok {
			return "", false
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(val)
		if !more {
			return b.String(), true
		}
		s = rest
	}
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
