package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Validate reports whether v conforms. On failure it returns *Error.
//
// v is a decoded JSON value as produced by encoding/json: map[string]any,
// []any, string, float64 or json.Number, bool or nil. Go integer and float32
// values are accepted as numbers too.
//
// Validation first runs in a fast mode that stops at the first failure and
// allocates nothing for typical schemas; only when the instance is invalid is
// it run again to collect the violations and build their paths.
func (s *Schema) Validate(v any) error {
	if s.root.eval(v, nil, nil) {
		return nil
	}
	c := &collector{}
	s.root.eval(v, c, nil)
	if len(c.list) == 0 { // cannot happen; keep the contract that failures carry a violation
		c.list = append(c.list, Violation{Message: "is invalid"})
	}
	return &Error{Violations: c.list}
}

// kind is the JSON type of an instance value.
type kind uint8

const (
	kInvalid kind = iota
	kNull
	kBoolean
	kObject
	kArray
	kString
	kNumber
)

// kindOf classifies v; for numbers it also returns the value.
func kindOf(v any) (kind, float64) {
	switch x := v.(type) {
	case nil:
		return kNull, 0
	case string:
		return kString, 0
	case float64:
		return kNumber, x
	case bool:
		return kBoolean, 0
	case map[string]any:
		return kObject, 0
	case []any:
		return kArray, 0
	case json.Number:
		if f, ok := parseNumber(x); ok {
			return kNumber, f
		}
	case int:
		return kNumber, float64(x)
	case int64:
		return kNumber, float64(x)
	case int32:
		return kNumber, float64(x)
	case int16:
		return kNumber, float64(x)
	case int8:
		return kNumber, float64(x)
	case uint:
		return kNumber, float64(x)
	case uint64:
		return kNumber, float64(x)
	case uint32:
		return kNumber, float64(x)
	case uint16:
		return kNumber, float64(x)
	case uint8:
		return kNumber, float64(x)
	case float32:
		return kNumber, float64(x)
	}
	return kInvalid, 0
}

// parseNumber converts a json.Number; out-of-range values become ±Inf.
func parseNumber(n json.Number) (float64, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

func isInteger(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) }

func (m typeMask) accepts(k kind, f float64) bool {
	switch k {
	case kNull:
		return m&tNull != 0
	case kBoolean:
		return m&tBoolean != 0
	case kObject:
		return m&tObject != 0
	case kArray:
		return m&tArray != 0
	case kString:
		return m&tString != 0
	case kNumber:
		return m&tNumber != 0 || (m&tInteger != 0 && isInteger(f))
	}
	return false
}

// kindPhrase names the type of an instance for "..., not X" messages.
func kindPhrase(v any, k kind, f float64, want typeMask) string {
	switch k {
	case kNull:
		return "null"
	case kBoolean:
		return "a boolean"
	case kObject:
		return "an object"
	case kArray:
		return "an array"
	case kString:
		return "a string"
	case kNumber:
		if want&tInteger != 0 && !isInteger(f) {
			return "a fractional number"
		}
		return "a number"
	}
	return "a value of Go type " + reflect.TypeOf(v).String()
}

// annot records which members or items of one instance location have been
// evaluated, for unevaluatedProperties and unevaluatedItems. It is only used
// when such a keyword is present.
type annot struct {
	props    map[string]struct{}
	allProps bool
	items    int // items [0, items) evaluated
	allItems bool
	idx      map[int]struct{}
}

func (a *annot) addProp(k string) {
	if a.allProps {
		return
	}
	if a.props == nil {
		a.props = make(map[string]struct{})
	}
	a.props[k] = struct{}{}
}

func (a *annot) addIndex(i int) {
	if a.idx == nil {
		a.idx = make(map[int]struct{})
	}
	a.idx[i] = struct{}{}
}

func (a *annot) merge(b *annot) {
	if b.allProps {
		a.allProps, a.props = true, nil
	} else if !a.allProps {
		for k := range b.props {
			a.addProp(k)
		}
	}
	a.allItems = a.allItems || b.allItems
	a.items = max(a.items, b.items)
	for i := range b.idx {
		a.addIndex(i)
	}
}

// eval validates v against n. With c == nil it runs in fast mode and returns
// at the first failure; otherwise it records violations in c. a, when
// non-nil, receives the members/items of v that were evaluated.
func (n *node) eval(v any, c *collector, a *annot) bool {
	if n.trivial {
		return true
	}
	if n.never {
		if c != nil {
			c.add("is not allowed")
		}
		return false
	}
	if n.hasUneval {
		return n.evalUneval(v, c, a)
	}
	return n.evalCore(v, c, a)
}

// evalKey validates the member key of the current object.
func (n *node) evalKey(val any, key string, c *collector) bool {
	if c == nil {
		return n.eval(val, nil, nil)
	}
	c.push(key)
	ok := n.eval(val, c, nil)
	c.pop()
	return ok
}

// evalIndex validates item i of the current array.
func (n *node) evalIndex(val any, i int, c *collector) bool {
	if c == nil {
		return n.eval(val, nil, nil)
	}
	c.pushIndex(i)
	ok := n.eval(val, c, nil)
	c.pop()
	return ok
}

// evalSub applies an in-place subschema, returning its annotations when a
// is non-nil. The annotation record is only allocated when needed.
func (n *node) evalSub(v any, a *annot) (bool, *annot) {
	if a == nil {
		return n.eval(v, nil, nil), nil
	}
	sa := &annot{}
	return n.eval(v, nil, sa), sa
}

func (n *node) evalCore(v any, c *collector, a *annot) bool {
	k, f := kindOf(v)
	if n.types != 0 && !n.types.accepts(k, f) {
		if c != nil {
			c.add(n.typeMsg + ", not " + kindPhrase(v, k, f, n.types))
		}
		return false
	}
	ok := true
	if n.hasConst && !jsonEqual(v, n.constVal) {
		if c == nil {
			return false
		}
		c.add(n.constMsg)
		ok = false
	}
	if n.hasEnum && !n.inEnum(v) {
		if c == nil {
			return false
		}
		c.add(n.enumMsg)
		ok = false
	}
	switch k {
	case kObject:
		if n.obj != nil && !n.evalObject(v, v.(map[string]any), c, a) {
			if c == nil {
				return false
			}
			ok = false
		}
	case kArray:
		if n.arr != nil && !n.evalArray(v.([]any), c, a) {
			if c == nil {
				return false
			}
			ok = false
		}
	case kString:
		if n.str != nil && !n.evalString(v.(string), c) {
			if c == nil {
				return false
			}
			ok = false
		}
	case kNumber:
		if n.num != nil && !n.evalNumber(f, c) {
			if c == nil {
				return false
			}
			ok = false
		}
	}
	if c != nil && c.full() {
		return false
	}

	// In-place applicators.
	if n.ref != nil && !n.ref.eval(v, c, a) {
		if c == nil || c.full() {
			return false
		}
		ok = false
	}
	if n.dynRef != nil && !n.dynRef.eval(v, c, a) {
		if c == nil || c.full() {
			return false
		}
		ok = false
	}
	for _, s := range n.allOf {
		if !s.eval(v, c, a) {
			if c == nil || c.full() {
				return false
			}
			ok = false
		}
	}
	if n.anyOf != nil {
		matched := false
		for _, s := range n.anyOf {
			// With annotations wanted every branch is evaluated.
			valid, sa := s.evalSub(v, a)
			if valid {
				matched = true
				if a == nil {
					break
				}
				a.merge(sa)
			}
		}
		if !matched {
			if c == nil {
				return false
			}
			reportBranches(n.anyOf, v, k, f, c, "must match at least one of the allowed schemas")
			ok = false
		}
	}
	if n.oneOf != nil {
		count := 0
		var first *annot
		for _, s := range n.oneOf {
			valid, sa := s.evalSub(v, a)
			if valid {
				count++
				if count == 1 {
					first = sa
				} else if c == nil {
					break
				}
			}
		}
		switch {
		case count == 1:
			if a != nil {
				a.merge(first)
			}
		case c == nil:
			return false
		case count == 0:
			reportBranches(n.oneOf, v, k, f, c, "must match exactly one of the allowed schemas")
			ok = false
		default:
			c.add("must match exactly one schema, matched " + strconv.Itoa(count))
			ok = false
		}
	}
	if n.not != nil && n.not.eval(v, nil, nil) {
		if c == nil {
			return false
		}
		if n.not.typesOnly {
			c.add("must not be " + n.not.types.phrase())
		} else {
			c.add("must not match the disallowed schema")
		}
		ok = false
	}
	if n.ifS != nil {
		valid, ia := n.ifS.evalSub(v, a)
		if valid {
			if a != nil {
				a.merge(ia)
			}
			if n.thenS != nil && !n.thenS.eval(v, c, a) {
				if c == nil {
					return false
				}
				ok = false
			}
		} else if n.elseS != nil && !n.elseS.eval(v, c, a) {
			if c == nil {
				return false
			}
			ok = false
		}
	}
	return ok
}

// reportBranches explains an anyOf/oneOf with no matching branch. When no
// branch accepts the instance's type the message lists the allowed types;
// when exactly one branch accepts it, that branch's own violations are
// reported; otherwise a single generic message is recorded.
func reportBranches(subs []*node, v any, k kind, f float64, c *collector, msg string) {
	var mask typeMask
	allTyped := true
	candidate, candidates := -1, 0
	for i, s := range subs {
		if s.never {
			continue
		}
		t := s.branchTypes()
		if t == 0 {
			allTyped = false
			candidate, candidates = i, candidates+1
			continue
		}
		mask |= t
		if t.accepts(k, f) {
			candidate, candidates = i, candidates+1
		}
	}
	switch {
	case candidates == 0 && allTyped && mask != 0:
		c.add("must be " + mask.phrase() + ", not " + kindPhrase(v, k, f, mask))
	case candidates == 1:
		before := len(c.list)
		subs[candidate].eval(v, c, nil)
		if len(c.list) == before {
			c.add(msg)
		}
	default:
		c.add(msg)
	}
}

// branchTypes returns the "type" constraint of a branch, looking through
// plain $ref chains.
func (n *node) branchTypes() typeMask {
	for range 8 {
		if n.types != 0 || n.ref == nil {
			return n.types
		}
		n = n.ref
	}
	return 0
}

// evalUneval evaluates a schema that has unevaluatedProperties or
// unevaluatedItems: it gathers the annotations of all other keywords first.
func (n *node) evalUneval(v any, c *collector, a *annot) bool {
	la := &annot{}
	ok := n.evalCore(v, c, la)
	if !ok && (c == nil || c.full()) {
		return false
	}
	k, f := kindOf(v)
	if n.types != 0 && !n.types.accepts(k, f) {
		return ok
	}
	switch x := v.(type) {
	case map[string]any:
		if n.unevalProps != nil {
			if !la.allProps && !n.checkUnevalProps(x, c, la) {
				ok = false
			}
			la.allProps, la.props = true, nil
		}
	case []any:
		if n.unevalItems != nil {
			if !la.allItems && !n.checkUnevalItems(x, c, la) {
				ok = false
			}
			la.allItems = true
		}
	}
	if a != nil {
		a.merge(la)
	}
	return ok
}

func (n *node) checkUnevalProps(m map[string]any, c *collector, la *annot) bool {
	if c == nil {
		for k, val := range m {
			if _, done := la.props[k]; !done && !n.unevalProp(k, val, nil) {
				return false
			}
		}
		return true
	}
	ok := true
	for _, k := range sortedKeys(m) {
		if _, done := la.props[k]; done {
			continue
		}
		if !n.unevalProp(k, m[k], c) {
			ok = false
			if c.full() {
				break
			}
		}
	}
	return ok
}

func (n *node) unevalProp(k string, val any, c *collector) bool {
	if n.unevalProps.never {
		if c != nil {
			c.addAt(k, "is not allowed (unknown property)")
		}
		return false
	}
	return n.unevalProps.evalKey(val, k, c)
}

func (n *node) checkUnevalItems(arr []any, c *collector, la *annot) bool {
	ok := true
	for i := la.items; i < len(arr); i++ {
		if _, done := la.idx[i]; done {
			continue
		}
		if n.unevalItems.never {
			if c == nil {
				return false
			}
			c.pushIndex(i)
			c.add("is not allowed (unevaluated item)")
			c.pop()
			ok = false
		} else if !n.unevalItems.evalIndex(arr[i], i, c) {
			if c == nil {
				return false
			}
			ok = false
		}
		if c != nil && c.full() {
			break
		}
	}
	return ok
}

func (n *node) inEnum(v any) bool {
	if n.enumStrings != nil {
		s, ok := v.(string)
		if !ok {
			return false
		}
		_, ok = n.enumStrings[s]
		return ok
	}
	for _, e := range n.enum {
		if jsonEqual(v, e) {
			return true
		}
	}
	return false
}

func (n *node) evalNumber(f float64, c *collector) bool {
	r := n.num
	ok := true
	for rule := range 5 {
		var failed bool
		switch rule {
		case 0:
			failed = r.hasMin && f < r.min
		case 1:
			failed = r.hasMax && f > r.max
		case 2:
			failed = r.hasExMin && f <= r.exMin
		case 3:
			failed = r.hasExMax && f >= r.exMax
		case 4:
			failed = r.hasMult && !isMultiple(f, r.mult)
		}
		if !failed {
			continue
		}
		if c == nil {
			return false
		}
		ok = false
		switch rule {
		case 0:
			c.add("must be >= " + r.minLit)
		case 1:
			c.add("must be <= " + r.maxLit)
		case 2:
			c.add("must be > " + r.exMinLit)
		case 3:
			c.add("must be < " + r.exMaxLit)
		case 4:
			c.add("must be a multiple of " + r.mLit)
		}
	}
	return ok
}

// isMultiple reports whether f is an integer multiple of m (m > 0). Exact
// binary multiples and integer operands are decided exactly; otherwise the
// quotient must be within a few ULPs of an integer, which absorbs the binary
// representation error of decimal fractions such as 0.1.
func isMultiple(f, m float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	if math.Mod(f, m) == 0 {
		return true
	}
	const exact = 1 << 53
	if isInteger(f) && isInteger(m) && math.Abs(f) < exact && m < exact {
		return false
	}
	q := f / m
	if math.IsInf(q, 0) {
		return false
	}
	r := math.Round(q)
	if q == r {
		return true
	}
	ar := math.Abs(r)
	ulp := math.Nextafter(ar, math.Inf(1)) - ar
	return math.Abs(q-r) <= 4*ulp
}

func (n *node) evalString(s string, c *collector) bool {
	r := n.str
	ok := true
	// A string of len(s) bytes has between len(s)/4 and len(s) code points,
	// so the rune count is only needed near the limits.
	if r.minLen > 0 && len(s) < 4*r.minLen && utf8.RuneCountInString(s) < r.minLen {
		if c == nil {
			return false
		}
		c.add("must be at least " + plural(r.minLen, "character") + " long")
		ok = false
	}
	if r.maxLen >= 0 && len(s) > r.maxLen && utf8.RuneCountInString(s) > r.maxLen {
		if c == nil {
			return false
		}
		c.add("must be at most " + plural(r.maxLen, "character") + " long")
		ok = false
	}
	if r.pattern != nil && !r.pattern.MatchString(s) {
		if c == nil {
			return false
		}
		c.add(r.patternMsg)
		ok = false
	}
	if r.format != nil && !r.format(s) {
		if c == nil {
			return false
		}
		c.add(r.formatMsg)
		ok = false
	}
	return ok
}

func (n *node) evalObject(v any, m map[string]any, c *collector, a *annot) bool {
	o := n.obj
	ok := true
	if o.minProps >= 0 && len(m) < o.minProps {
		if c == nil {
			return false
		}
		c.add("must have at least " + plural(o.minProps, "property"))
		ok = false
	}
	if o.maxProps >= 0 && len(m) > o.maxProps {
		if c == nil {
			return false
		}
		c.add("must have at most " + plural(o.maxProps, "property"))
		ok = false
	}
	for _, name := range o.required {
		if _, has := m[name]; !has {
			if c == nil {
				return false
			}
			c.addAt(name, "is required")
			ok = false
		}
	}
	for i := range o.depReq {
		d := &o.depReq[i]
		if _, has := m[d.prop]; !has {
			continue
		}
		for _, name := range d.required {
			if _, has := m[name]; !has {
				if c == nil {
					return false
				}
				c.addAt(name, d.msg)
				ok = false
			}
		}
	}
	if c != nil && c.full() {
		return false
	}

	if a != nil && o.additional != nil {
		a.allProps, a.props = true, nil // every member is evaluated by some keyword
	}
	if c == nil {
		onlyAdditional := o.patterns == nil && o.propNames == nil
		if (!o.scanKeys && (o.propIdx == nil || len(m) >= len(o.props))) ||
			(o.scanKeys && onlyAdditional && o.propIdx == nil) {
			// Walk the declared properties (cheaper than iterating the map
			// for small schemas), counting the members found; the map is
			// only iterated when additionalProperties has members to see.
			found := 0
			for i := range o.props {
				pr := &o.props[i]
				if val, has := m[pr.name]; has {
					found++
					if a != nil {
						a.addProp(pr.name)
					}
					if !pr.schema.eval(val, nil, nil) {
						return false
					}
				}
			}
			if found < len(m) && o.additional != nil {
				if o.additional.never {
					return false
				}
				for k, val := range m {
					if o.lookup(k) == nil && !o.additional.eval(val, nil, nil) {
						return false
					}
				}
			}
		} else {
			for k, val := range m {
				if !o.member(k, val, nil, a, false) {
					return false
				}
			}
		}
	} else {
		// Collecting mode: properties in schema order, then the remaining
		// members in sorted order, so that messages are deterministic.
		for i := range o.props {
			pr := &o.props[i]
			if val, has := m[pr.name]; has {
				if a != nil {
					a.addProp(pr.name)
				}
				if !pr.schema.evalKey(val, pr.name, c) {
					ok = false
					if c.full() {
						return false
					}
				}
			}
		}
		if o.scanKeys {
			for _, k := range sortedKeys(m) {
				if !o.member(k, m[k], c, a, true) {
					ok = false
					if c.full() {
						return false
					}
				}
			}
		}
	}

	for i := range o.depSchemas {
		d := &o.depSchemas[i]
		if _, has := m[d.prop]; has && !d.schema.eval(v, c, a) {
			if c == nil || c.full() {
				return false
			}
			ok = false
		}
	}
	return ok
}

// member applies properties (unless skipProps), patternProperties,
// additionalProperties and propertyNames to one object member.
func (o *objRules) member(k string, val any, c *collector, a *annot, skipProps bool) bool {
	ok := true
	matched := false
	if s := o.lookup(k); s != nil {
		matched = true
		if !skipProps {
			if a != nil {
				a.addProp(k)
			}
			if !s.evalKey(val, k, c) {
				if c == nil {
					return false
				}
				ok = false
			}
		}
	}
	for i := range o.patterns {
		pr := &o.patterns[i]
		if !pr.re.MatchString(k) {
			continue
		}
		matched = true
		if a != nil {
			a.addProp(k)
		}
		if !pr.schema.evalKey(val, k, c) {
			if c == nil {
				return false
			}
			ok = false
		}
	}
	if !matched && o.additional != nil {
		if o.additional.never {
			if c == nil {
				return false
			}
			c.addAt(k, "is not allowed (unknown property)")
			ok = false
		} else if !o.additional.evalKey(val, k, c) {
			if c == nil {
				return false
			}
			ok = false
		}
	}
	if o.propNames != nil && !o.propNames.evalName(k) {
		if c == nil {
			return false
		}
		nc := &collector{path: append(slices.Clip(c.path), pathElem{key: k, index: -1})}
		o.propNames.eval(k, nc, nil)
		for _, vi := range nc.list {
			c.list = append(c.list, Violation{Path: vi.Path, Message: "property name " + vi.Message})
			if c.full() {
				break
			}
		}
		ok = false
	}
	return ok
}

// evalName validates a property name in fast mode. String schemas are
// checked directly so that the name is not boxed into an interface.
func (n *node) evalName(k string) bool {
	if n.trivial {
		return true
	}
	if n.never {
		return false
	}
	if !n.hasUneval && !n.hasConst && !n.hasEnum && n.ref == nil && n.dynRef == nil &&
		n.allOf == nil && n.anyOf == nil && n.oneOf == nil && n.not == nil && n.ifS == nil {
		if n.types != 0 && n.types&tString == 0 {
			return false
		}
		return n.str == nil || n.evalString(k, nil)
	}
	return n.eval(k, nil, nil)
}

func (n *node) evalArray(arr []any, c *collector, a *annot) bool {
	r := n.arr
	ok := true
	if r.minItems >= 0 && len(arr) < r.minItems {
		if c == nil {
			return false
		}
		c.add("must have at least " + plural(r.minItems, "item"))
		ok = false
	}
	if r.maxItems >= 0 && len(arr) > r.maxItems {
		if c == nil {
			return false
		}
		c.add("must have at most " + plural(r.maxItems, "item"))
		ok = false
	}
	np := min(len(r.prefix), len(arr))
	for i := range np {
		if !r.prefix[i].evalIndex(arr[i], i, c) {
			if c == nil || c.full() {
				return false
			}
			ok = false
		}
	}
	if a != nil {
		a.items = max(a.items, np)
	}
	if r.items != nil && len(arr) > len(r.prefix) {
		if a != nil {
			a.allItems = true
		}
		if r.items.never {
			if c == nil {
				return false
			}
			c.add("must have at most " + plural(len(r.prefix), "item"))
			ok = false
		} else {
			for i := len(r.prefix); i < len(arr); i++ {
				if !r.items.evalIndex(arr[i], i, c) {
					if c == nil || c.full() {
						return false
					}
					ok = false
				}
			}
		}
	}
	if r.contains != nil {
		count := 0
		for i, it := range arr {
			if r.contains.eval(it, nil, nil) {
				count++
				if a != nil {
					a.addIndex(i)
				} else if c == nil && r.maxContains < 0 && count >= r.minContains {
					break
				}
			}
		}
		if count < r.minContains {
			if c == nil {
				return false
			}
			c.add("must contain at least " + plural(r.minContains, "matching item") + ", found " + strconv.Itoa(count))
			ok = false
		}
		if r.maxContains >= 0 && count > r.maxContains {
			if c == nil {
				return false
			}
			c.add("must contain at most " + plural(r.maxContains, "matching item") + ", found " + strconv.Itoa(count))
			ok = false
		}
	}
	if r.unique {
		if i, j, dup := findDuplicate(arr); dup {
			if c == nil {
				return false
			}
			c.add(fmt.Sprintf("must not contain duplicate items (items %d and %d are equal)", i, j))
			ok = false
		}
	}
	return ok
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonEqual is JSON equality: numbers compare numerically, objects by their
// members regardless of order, arrays element-wise.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	ka, fa := kindOf(a)
	if ka != kNumber {
		return false
	}
	kb, fb := kindOf(b)
	return kb == kNumber && fa == fb
}

// findDuplicate returns the first pair i < j (smallest j, then smallest i)
// of equal items.
func findDuplicate(arr []any) (int, int, bool) {
	if len(arr) <= 32 {
		for j := 1; j < len(arr); j++ {
			for i := range j {
				if jsonEqual(arr[i], arr[j]) {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	type entry struct {
		h uint64
		i int
	}
	es := make([]entry, len(arr))
	for i, v := range arr {
		es[i] = entry{hashValue(v), i}
	}
	slices.SortFunc(es, func(x, y entry) int {
		switch {
		case x.h < y.h:
			return -1
		case x.h > y.h:
			return 1
		}
		return x.i - y.i
	})
	bi, bj, found := 0, 0, false
	for start := 0; start < len(es); {
		end := start + 1
		for end < len(es) && es[end].h == es[start].h {
			end++
		}
		for y := start + 1; y < end; y++ {
			j := es[y].i
			if found && j > bj {
				break
			}
			for x := start; x < y; x++ {
				if i := es[x].i; jsonEqual(arr[i], arr[j]) {
					if !found || j < bj || (j == bj && i < bi) {
						bi, bj, found = i, j, true
					}
					break
				}
			}
		}
		start = end
	}
	return bi, bj, found
}

func mix64(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// hashValue hashes a JSON value consistently with jsonEqual.
func hashValue(v any) uint64 {
	switch x := v.(type) {
	case nil:
		return 0x6e756c6c
	case bool:
		if x {
			return 0x74727565
		}
		return 0x66616c73
	case string:
		return hashString(x)
	case map[string]any:
		var h uint64 = 0x6f626a
		for k, e := range x {
			h += mix64(hashString(k) ^ (hashValue(e) * 31)) // order independent
		}
		return mix64(h)
	case []any:
		var h uint64 = 0x617272
		for _, e := range x {
			h = mix64(h*31 + hashValue(e))
		}
		return h
	}
	if k, f := kindOf(v); k == kNumber {
		if f == 0 {
			f = 0 // fold -0 into 0
		}
		return mix64(math.Float64bits(f) ^ 0x6e756d)
	}
	return 0
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h ^ 0x73)
}
