package uritemplate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Template is a parsed RFC 6570 URI template. Create one with [Parse] or
// [MustParse]. A Template is immutable and safe for concurrent use.
type Template struct {
	raw      string
	parts    []part    // literal and expression parts, for Expand
	names    []string  // variable names in order of first appearance
	matchers []matcher // parts regrouped for Match
}

// operator describes the expansion behaviour of an expression operator
// (RFC 6570 appendix A).
type operator struct {
	char     byte   // operator character, 0 for simple string expansion
	first    byte   // emitted before the first defined value, 0 for none
	sep      byte   // emitted between values
	named    bool   // values are emitted as name=value
	ifemp    string // emitted after the name when the value is empty
	reserved bool   // reserved characters are not encoded
}

var (
	opSimple   = &operator{sep: ','}
	opReserved = &operator{char: '+', sep: ',', reserved: true}
	opFragment = &operator{char: '#', first: '#', sep: ',', reserved: true}
	opLabel    = &operator{char: '.', first: '.', sep: '.'}
	opPath     = &operator{char: '/', first: '/', sep: '/'}
	opParam    = &operator{char: ';', first: ';', sep: ';', named: true}
	opQuery    = &operator{char: '?', first: '?', sep: '&', named: true, ifemp: "="}
	opCont     = &operator{char: '&', first: '&', sep: '&', named: true, ifemp: "="}
)

func operatorFor(c byte) *operator {
	switch c {
	case '+':
		return opReserved
	case '#':
		return opFragment
	case '.':
		return opLabel
	case '/':
		return opPath
	case ';':
		return opParam
	case '?':
		return opQuery
	case '&':
		return opCont
	}
	return nil
}

// varSpec is one variable of an expression.
type varSpec struct {
	name    string
	prefix  int  // maximum length from a :N modifier, 0 when absent
	explode bool // * modifier
	shared  bool // the name occurs more than once in the template
	loose   bool // some occurrence of the name has a prefix modifier
}

// part is a literal (op == nil) or an expression.
type part struct {
	lit  string // literal text as written
	enc  string // literal text as expanded (percent-encoded where needed)
	op   *operator
	vars []varSpec
}

// Parse parses an RFC 6570 URI template and precompiles it for expansion and
// matching.
//
// Levels 1 to 3 are supported fully: simple {var}, reserved {+var}, fragment
// {#var}, label {.var}, path segment {/var}, path-style parameter {;var},
// form query {?var}, form continuation {&var}, and several variables per
// expression {x,y}. The level 4 modifiers, prefix {var:3} and explode
// {var*}, are parsed and expanded; see the package documentation for how
// [Template.Match] treats them.
//
// A malformed template (unclosed or unmatched brace, empty expression,
// invalid variable name, unknown or reserved operator, malformed modifier)
// yields an error whose message gives the byte offset of the problem and
// says what is wrong.
func Parse(template string) (*Template, error) {
	t := &Template{raw: template}
	litStart := 0
	for i := 0; i < len(template); {
		switch template[i] {
		case '{':
			if i > litStart {
				t.addLiteral(template[litStart:i])
			}
			end := -1
			for j := i + 1; j < len(template); j++ {
				if template[j] == '}' {
					end = j
					break
				}
				if template[j] == '{' {
					return nil, parseError(template, j,
						fmt.Sprintf("unexpected '{' inside the expression opened at offset %d", i))
				}
			}
			if end < 0 {
				return nil, parseError(template, i, "unclosed expression: missing '}'")
			}
			p, err := parseExpression(template, i, end)
			if err != nil {
				return nil, err
			}
			t.parts = append(t.parts, p)
			i = end + 1
			litStart = i
		case '}':
			return nil, parseError(template, i, "unmatched '}' outside an expression")
		default:
			i++
		}
	}
	if litStart < len(template) {
		t.addLiteral(template[litStart:])
	}
	t.finish()
	return t, nil
}

// MustParse is like [Parse] but panics if the template is malformed. It is
// meant for templates that are constants, such as package-level variables.
func MustParse(template string) *Template {
	t, err := Parse(template)
	if err != nil {
		panic(err)
	}
	return t
}

// String returns the template text exactly as given to [Parse].
func (t *Template) String() string {
	if t == nil {
		return ""
	}
	return t.raw
}

// Vars returns the names of the template's variables in order of first
// appearance, each name once. The caller may modify the returned slice.
func (t *Template) Vars() []string {
	if t == nil {
		return nil
	}
	return slices.Clone(t.names)
}

func (t *Template) addLiteral(s string) {
	var b strings.Builder
	encodeValue(&b, s, true)
	t.parts = append(t.parts, part{lit: s, enc: b.String()})
}

// finish computes the variable list, the shared/loose flags and the
// matchers once all parts are known.
func (t *Template) finish() {
	count := map[string]int{}
	prefixed := map[string]bool{}
	for _, p := range t.parts {
		for _, v := range p.vars {
			if count[v.name] == 0 {
				t.names = append(t.names, v.name)
			}
			count[v.name]++
			if v.prefix > 0 {
				prefixed[v.name] = true
			}
		}
	}
	for i := range t.parts {
		vars := t.parts[i].vars
		for j := range vars {
			vars[j].shared = count[vars[j].name] > 1
			vars[j].loose = prefixed[vars[j].name]
		}
	}
	t.matchers = buildMatchers(t.parts)
}

// parseExpression parses template[start:end+1], which is "{...}".
func parseExpression(template string, start, end int) (part, error) {
	body := template[start+1 : end]
	base := start + 1 // offset of body[0] in template
	if body == "" {
		return part{}, parseError(template, start, "empty expression \"{}\"")
	}
	op := opSimple
	k := 0
	c := body[0]
	switch {
	case operatorFor(c) != nil:
		op = operatorFor(c)
		k = 1
	case c == '=' || c == '!' || c == '@' || c == '|' || c == '$' || c == '(' || c == ')':
		return part{}, parseError(template, base,
			fmt.Sprintf("unknown operator %q (reserved by RFC 6570 for future extensions)", c))
	case c == ',':
		return part{}, parseError(template, base, "empty variable name before ','")
	case isVarChar(c) || c == '%':
		// No operator: simple string expansion.
	case c < utf8.RuneSelf && c > ' ' && c != 0x7f:
		return part{}, parseError(template, base, fmt.Sprintf("unknown operator %q", c))
	default:
		return part{}, parseError(template, base,
			fmt.Sprintf("invalid character %s in variable name", quoteAt(body, 0)))
	}
	if k == len(body) {
		return part{}, parseError(template, base+k,
			fmt.Sprintf("missing variable name after operator %q", op.char))
	}
	var vars []varSpec
	for {
		nameStart := k
		for k < len(body) {
			c := body[k]
			switch {
			case isVarChar(c):
				k++
				continue
			case c == '%':
				if k+2 >= len(body) || !isHex(body[k+1]) || !isHex(body[k+2]) {
					return part{}, parseError(template, base+k,
						"invalid percent-encoding in variable name (want %XX with hex digits)")
				}
				k += 3
				continue
			case c == '.':
				if k == nameStart || body[k-1] == '.' {
					return part{}, parseError(template, base+k,
						"'.' in a variable name must be between name characters")
				}
				k++
				continue
			}
			break
		}
		name := body[nameStart:k]
		if name == "" {
			if k < len(body) && (body[k] == ',' || body[k] == ':' || body[k] == '*') {
				return part{}, parseError(template, base+k, "empty variable name")
			}
			return part{}, parseError(template, base+k,
				fmt.Sprintf("invalid character %s in variable name", quoteAt(body, k)))
		}
		if name[len(name)-1] == '.' {
			return part{}, parseError(template, base+k-1, "variable name cannot end with '.'")
		}
		spec := varSpec{name: name}
		if k < len(body) && body[k] == ':' {
			k++
			ds := k
			for k < len(body) && body[k] >= '0' && body[k] <= '9' {
				k++
			}
			digits := body[ds:k]
			if digits == "" {
				return part{}, parseError(template, base+ds,
					fmt.Sprintf("prefix modifier of %q needs a length from 1 to 9999", name))
			}
			if len(digits) > 4 || digits[0] == '0' {
				return part{}, parseError(template, base+ds,
					fmt.Sprintf("prefix length %s of %q is out of range 1 to 9999", digits, name))
			}
			spec.prefix, _ = strconv.Atoi(digits)
			if k < len(body) && body[k] == '*' {
				return part{}, parseError(template, base+k,
					fmt.Sprintf("variable %q cannot have both a prefix and an explode modifier", name))
			}
		} else if k < len(body) && body[k] == '*' {
			spec.explode = true
			k++
			if k < len(body) && body[k] == ':' {
				return part{}, parseError(template, base+k,
					fmt.Sprintf("variable %q cannot have both an explode and a prefix modifier", name))
			}
		}
		vars = append(vars, spec)
		if k == len(body) {
			break
		}
		if body[k] != ',' {
			return part{}, parseError(template, base+k,
				fmt.Sprintf("invalid character %s after variable %q (want ',' or '}')", quoteAt(body, k), name))
		}
		k++
		if k == len(body) {
			return part{}, parseError(template, base+k, "empty variable name after ','")
		}
	}
	return part{op: op, vars: vars}, nil
}

func isVarChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// quoteAt quotes the (possibly multi-byte) character starting at s[i].
func quoteAt(s string, i int) string {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02X", s[i])
	}
	return strconv.QuoteRune(r)
}

// parseError builds the error returned by Parse for a problem at byte offset
// pos of template.
func parseError(template string, pos int, msg string) error {
	shown := template
	const maxShown = 80
	if len(shown) > maxShown {
		shown = shown[:maxShown] + "..."
	}
	return fmt.Errorf("uritemplate: invalid template %q: at offset %d: %s", shown, pos, msg)
}
