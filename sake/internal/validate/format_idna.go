package validate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Internationalised host names: an A-label ("xn--" and Punycode) must
// decode (RFC 3492) to a U-label that follows the rules of RFC 5891
// section 4.2 and the contextual rules of RFC 5892 appendix A. The checks
// here are those rules that need no Unicode table beyond Go's: a label
// does not begin with a combining mark, has no "--" in its third and
// fourth places, holds none of the code points RFC 5892 section 2.6 lists
// as DISALLOWED exceptions, and uses MIDDLE DOT, GREEK KERAIA, HEBREW
// GERESH and GERSHAYIM, KATAKANA MIDDLE DOT, the two sets of Arabic-Indic
// digits, ZERO WIDTH JOINER and NON-JOINER only in the contexts allowed.

// checkALabel reports whether an LDH label is acceptable: an ordinary
// label, or an A-label whose U-label passes the checks above.
func checkALabel(label string) bool {
	if len(label) < 4 || label[2] != '-' || label[3] != '-' {
		return true
	}
	if !strings.EqualFold(label[:2], "xn") {
		return false // "--" in the third and fourth places is reserved
	}
	u, ok := punycodeDecode(label[4:])
	if !ok || len(u) == 0 {
		return false
	}
	return checkULabel(u)
}

const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
)

func pcAdapt(delta, points int, first bool) int {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / points
	k := 0
	for delta > ((pcBase-pcTMin)*pcTMax)/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}

func pcDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c-'0') + 26
	case c >= 'a' && c <= 'z':
		return int(c - 'a')
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	}
	return pcBase
}

// punycodeDecode decodes the Punycode of an A-label (after "xn--").
func punycodeDecode(s string) ([]rune, bool) {
	var out []rune
	pos := 0
	if b := strings.LastIndexByte(s, '-'); b > 0 {
		for i := 0; i < b; i++ {
			if s[i] >= utf8.RuneSelf {
				return nil, false
			}
			out = append(out, rune(s[i]))
		}
		pos = b + 1
	}
	basic := len(out)
	n, i, bias := pcInitialN, 0, pcInitialBias
	for pos < len(s) {
		oldi, w := i, 1
		for k := pcBase; ; k += pcBase {
			if pos >= len(s) {
				return nil, false
			}
			d := pcDigit(s[pos])
			pos++
			if d >= pcBase || d > (1<<30-i)/w {
				return nil, false
			}
			i += d * w
			t := k - bias
			if t < pcTMin {
				t = pcTMin
			} else if t > pcTMax {
				t = pcTMax
			}
			if d < t {
				break
			}
			w *= pcBase - t
			if w > 1<<30 {
				return nil, false
			}
		}
		bias = pcAdapt(i-oldi, len(out)+1, oldi == 0)
		n += i / (len(out) + 1)
		i %= len(out) + 1
		if n > unicode.MaxRune || (n >= 0xD800 && n <= 0xDFFF) {
			return nil, false
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = rune(n)
		i++
	}
	if len(out) == basic {
		return nil, false // an A-label encodes at least one non-ASCII code point
	}
	return out, true
}

// virama reports whether r has canonical combining class 9 (Virama).
func virama(r rune) bool {
	switch r {
	case 0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D3B, 0x0D3C,
		0x0D4D, 0x0DCA, 0x0E3A, 0x0EBA, 0x0F84, 0x1039, 0x103A, 0x1714, 0x1715, 0x1734,
		0x17D2, 0x1A60, 0x1B44, 0x1BAA, 0x1BAB, 0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA82C,
		0xA8C4, 0xA953, 0xA9C0, 0xAAF6, 0xABED, 0x10A3F, 0x11046, 0x11070, 0x1107F, 0x110B9,
		0x11133, 0x11134, 0x111C0, 0x11235, 0x112EA, 0x1134D, 0x11442, 0x114C2, 0x115BF,
		0x1163F, 0x116B6, 0x1172B, 0x11839, 0x1193D, 0x1193E, 0x119E0, 0x11A34, 0x11A47,
		0x11A99, 0x11C3F, 0x11D44, 0x11D45, 0x11D97:
		return true
	}
	return false
}

func checkULabel(u []rune) bool {
	if unicode.Is(unicode.M, u[0]) {
		return false
	}
	if len(u) >= 4 && u[2] == '-' && u[3] == '-' {
		return false
	}
	at := func(i int) rune {
		if i < 0 || i >= len(u) {
			return -1
		}
		return u[i]
	}
	arabicIndic, extended := false, false
	for i, r := range u {
		switch {
		case r == 0x0640, r == 0x07FA, r == 0x302E, r == 0x302F, r >= 0x3031 && r <= 0x3035, r == 0x303B:
			return false // DISALLOWED exceptions
		case r == 0x00B7: // MIDDLE DOT between two l
			if at(i-1) != 'l' || at(i+1) != 'l' {
				return false
			}
		case r == 0x0375: // GREEK KERAIA before Greek
			if n := at(i + 1); n < 0 || !unicode.Is(unicode.Greek, n) {
				return false
			}
		case r == 0x05F3, r == 0x05F4: // GERESH, GERSHAYIM after Hebrew
			if p := at(i - 1); p < 0 || !unicode.Is(unicode.Hebrew, p) {
				return false
			}
		case r == 0x30FB: // KATAKANA MIDDLE DOT with Hiragana, Katakana or Han
			ok := false
			for _, x := range u {
				if x != 0x30FB && (unicode.In(x, unicode.Hiragana, unicode.Katakana, unicode.Han)) {
					ok = true
				}
			}
			if !ok {
				return false
			}
		case r >= 0x0660 && r <= 0x0669:
			arabicIndic = true
		case r >= 0x06F0 && r <= 0x06F9:
			extended = true
		case r == 0x200D: // ZERO WIDTH JOINER after a virama
			if !virama(at(i - 1)) {
				return false
			}
		case r == 0x200C: // ZERO WIDTH NON-JOINER after a virama or between joining letters
			if !virama(at(i-1)) && !(joining(u[:i], true) && joining(u[i+1:], false)) {
				return false
			}
		}
	}
	return !(arabicIndic && extended)
}

// joining approximates RFC 5892's joining-type context for ZERO WIDTH
// NON-JOINER: the nearest letter before (or after), skipping transparent
// marks, is of a joining script (Arabic, Syriac, N'Ko, Mongolian).
func joining(rs []rune, before bool) bool {
	for k := range rs {
		r := rs[k]
		if before {
			r = rs[len(rs)-1-k]
		}
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		return unicode.In(r, unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian) && unicode.IsLetter(r)
	}
	return false
}
