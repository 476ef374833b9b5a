package sake

import (
	"fmt"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// MetaComponentVersion is the _meta key that carries a component's
// version: in a tools/list, prompts/list, resources/list or
// resources/templates/list entry it is the version of the entry listed;
// in the _meta of a tools/call, prompts/get or resources/read request it
// asks for that version instead of the highest. The protocol has no field
// for it, so it is a key of this library's own prefix.
const MetaComponentVersion = protocol.MetaComponentVersion

// maxVersionBytes bounds a version string, declared or asked for.
const maxVersionBytes = 64

// CompareVersions orders two version strings, as the server does to
// choose the highest version of a component. It returns -1, 0 or +1.
//
// The empty version (a component declared without one) is below every
// other. A leading "v" is ignored, and so is build metadata after "+".
// The rest is split at the first "-" that is followed by something other
// than a digit: before it is the release ("1.4.0", "2025-01-31"), after
// it a pre-release ("rc.1"), which sorts below the release alone
// (1.0.0-rc.1 < 1.0.0). Both are compared part by part, parts separated by
// dots (and, in the release, dashes): parts made of digits compare as
// numbers (1.10 > 1.9), other parts as text, and a number sorts below
// text. A release missing a part counts it as 0, so 1.2 and 1.2.0 have the
// same rank; ties between different strings are broken by comparing the
// strings, so the order is total. Dates written year first (2025-01-31)
// therefore order as dates, and semantic versions as SemVer 2.0 orders
// them, except a pre-release made of digits only (1.0.0-1), which this
// rule reads as a fourth release part.
func CompareVersions(a, b string) int {
	if c := compareRank(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// compareRank is CompareVersions without the tie-break: 1.2 and 1.2.0
// rank the same.
func compareRank(a, b string) int {
	if a == b {
		return 0
	}
	if a == "" {
		return -1
	}
	if b == "" {
		return 1
	}
	relA, preA := splitVersion(a)
	relB, preB := splitVersion(b)
	if c := compareParts(relA, relB, true); c != 0 {
		return c
	}
	switch {
	case preA == "" && preB != "":
		return 1
	case preA != "" && preB == "":
		return -1
	}
	return compareParts(preA, preB, false)
}

// splitVersion returns the release and pre-release of a version.
func splitVersion(v string) (release, pre string) {
	if len(v) > 1 && (v[0] == 'v' || v[0] == 'V') && isDigit(v[1]) {
		v = v[1:]
	}
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	for i := 0; i+1 < len(v); i++ {
		if v[i] == '-' && !isDigit(v[i+1]) {
			return v[:i], v[i+1:]
		}
	}
	return v, ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// compareParts compares two dotted sequences part by part. In a release
// (padded) a missing part is 0 and a dash separates parts too; in a
// pre-release the shorter sequence sorts first.
func compareParts(a, b string, padded bool) int {
	for a != "" || b != "" {
		var pa, pb string
		pa, a = nextPart(a, padded)
		pb, b = nextPart(b, padded)
		if padded {
			if pa == "" {
				pa = "0"
			}
			if pb == "" {
				pb = "0"
			}
		} else {
			switch {
			case pa == "" && pb != "":
				return -1
			case pa != "" && pb == "":
				return 1
			}
		}
		if c := comparePart(pa, pb); c != 0 {
			return c
		}
	}
	return 0
}

func nextPart(s string, dashes bool) (part, rest string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || dashes && s[i] == '-' {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// comparePart compares numbers as numbers, text as text, a number below
// text.
func comparePart(a, b string) int {
	na, nb := allDigits(a), allDigits(b)
	switch {
	case na && nb:
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			if len(a) < len(b) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	case na:
		return -1
	case nb:
		return 1
	}
	return strings.Compare(a, b)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// checkVersion finds what is wrong with a declared version.
func checkVersion(v string) error {
	if len(v) > maxVersionBytes {
		return fmt.Errorf("version %.20q… is longer than %d bytes", v, maxVersionBytes)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`<>=,"\`, c) >= 0 {
			return fmt.Errorf("version %q has %q: a version is printable ASCII without spaces, commas, quotes or < > =", v, c)
		}
	}
	return nil
}

// VersionFilter serves only the versions of components within Range:
// the others are left out of every list and answer as a version the
// server does not have. Of the versions left, lists show the highest, as
// always. Server.FilterVersions installs it, on a server whose components
// are its own, mounted (Mount) or proxied.
type VersionFilter struct {
	// Range is one or more comparisons that a version must all pass,
	// separated by spaces or commas: ">=2.0 <3", ">1.4, <=1.9", "=2.1.0".
	// The operators are >=, >, <=, < and = (a version alone means =);
	// versions compare as CompareVersions orders them, except that
	// versions of the same rank are equal (=1.2 passes 1.2.0).
	Range string
	// ExcludeUnversioned leaves out components declared without a version
	// too; by default they pass.
	ExcludeUnversioned bool
}

// Check reports what is wrong with the filter's range, as FilterVersions
// would: for a configuration read before any server is built.
func (f VersionFilter) Check() error {
	_, err := f.compile()
	return err
}

// versionRange is a parsed VersionFilter.
type versionRange struct {
	bounds             []versionBound
	excludeUnversioned bool
}

type versionBound struct {
	op      string // >=, >, <=, <, =
	version string
}

// compile parses the filter's range.
func (f VersionFilter) compile() (*versionRange, error) {
	r := &versionRange{excludeUnversioned: f.ExcludeUnversioned}
	fields := strings.FieldsFunc(f.Range, func(c rune) bool { return c == ' ' || c == ',' || c == '\t' })
	for i := 0; i < len(fields); i++ {
		tok := fields[i]
		op := ""
		for _, o := range []string{">=", "<=", "==", ">", "<", "="} {
			if strings.HasPrefix(tok, o) {
				op, tok = o, tok[len(o):]
				break
			}
		}
		if op == "==" || op == "" {
			op = "="
		}
		if tok == "" { // the operator stood alone: the version is the next field
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("sake: version range %q: %s needs a version after it", f.Range, op)
			}
			i++
			tok = fields[i]
		}
		if err := checkVersion(tok); err != nil || tok == "" {
			return nil, fmt.Errorf("sake: version range %q: %q is not a version: write comparisons like \">=2.0 <3\"", f.Range, tok)
		}
		r.bounds = append(r.bounds, versionBound{op: op, version: tok})
	}
	if len(r.bounds) == 0 && !r.excludeUnversioned {
		return nil, nil // passes everything
	}
	return r, nil
}

// allows reports whether version passes the range; a nil range passes
// every version.
func (r *versionRange) allows(version string) bool {
	if r == nil {
		return true
	}
	if version == "" {
		return !r.excludeUnversioned
	}
	for _, b := range r.bounds {
		c := compareRank(version, b.version)
		var ok bool
		switch b.op {
		case ">=":
			ok = c >= 0
		case ">":
			ok = c > 0
		case "<=":
			ok = c <= 0
		case "<":
			ok = c < 0
		default:
			ok = c == 0
		}
		if !ok {
			return false
		}
	}
	return true
}
