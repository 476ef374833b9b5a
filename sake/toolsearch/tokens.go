package toolsearch

import (
	"unicode"
	"unicode/utf8"
)

// maxTokenBytes bounds one token: longer runs of letters are cut there.
const maxTokenBytes = 64

// tokens splits text into search terms: runs of letters and digits,
// split again where snake_case, kebab-case, dotted names, camelCase and
// letter-digit boundaries meet ("listPullRequests" and
// "list_pull_requests" give the same terms), lower-cased, without
// common English words, each reduced to its stem. fn receives each term.
// stems, when not nil, keeps the stem of each word seen, so that a word
// met again costs no allocation.
func tokens(text string, stems map[string]string, fn func(term string)) {
	var buf [maxTokenBytes]byte
	start := -1
	var prev rune
	flush := func(end int) {
		if start < 0 {
			return
		}
		word := text[start:end]
		start = -1
		n := 0
		for _, r := range word {
			r = unicode.ToLower(r)
			if n+utf8.RuneLen(r) > len(buf) {
				break
			}
			n += utf8.EncodeRune(buf[n:], r)
		}
		if stopWords[string(buf[:n])] {
			return
		}
		if st, ok := stems[string(buf[:n])]; ok {
			fn(st)
			return
		}
		w := string(buf[:n])
		st := stem(w)
		if stems != nil {
			stems[w] = st
		}
		fn(st)
	}
	for i, r := range text {
		isWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		if !isWord {
			flush(i)
			prev = r
			continue
		}
		if start >= 0 {
			switch {
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush(i) // camelCase
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush(i) // v2, base64 split at the digits
			case unicode.IsLower(r) && unicode.IsUpper(prev) && i-start > utf8.RuneLen(prev):
				// "HTMLParser": the capital before a lower-case letter
				// starts a new word.
				p := i - utf8.RuneLen(prev)
				flush(p)
				start = p
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	flush(len(text))
}

// stem reduces an English word to a stem, lightly: plurals, -ing, -ed,
// -er and a final -e go, so "creates", "creating", "created" and
// "create" meet, and "repositories" meets "repository". It is a small
// subset of Porter's rules, enough for the short imperative texts tools
// are described with; it never shortens a word below three letters.
func stem(w string) string {
	if len(w) <= 3 || !isASCIILower(w) {
		return w
	}
	switch {
	case hasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case hasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case hasSuffix(w, "xes") || hasSuffix(w, "ches") || hasSuffix(w, "shes") || hasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case hasSuffix(w, "ss") || hasSuffix(w, "us") || hasSuffix(w, "is"):
	case hasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case hasSuffix(w, "ing") && len(w) > 5:
		w = undouble(w[:len(w)-3])
	case hasSuffix(w, "ed") && len(w) > 4 && !hasSuffix(w, "eed"):
		w = undouble(w[:len(w)-2])
	case hasSuffix(w, "er") && len(w) > 5:
		w = undouble(w[:len(w)-2])
	}
	if hasSuffix(w, "e") && len(w) > 3 && !hasSuffix(w, "ee") {
		w = w[:len(w)-1]
	}
	if hasSuffix(w, "y") && len(w) > 3 {
		w = w[:len(w)-1] + "i" // "query" meets "queries"
	}
	return w
}

// undouble drops the second of two equal final consonants: "runn" is
// "run", "committ" is "commit"; "ll", "ss" and "zz" stay.
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !isVowel(w[n-1]) && w[n-1] != 'l' && w[n-1] != 's' && w[n-1] != 'z' {
		return w[:n-1]
	}
	return w
}

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

func hasSuffix(w, s string) bool { return len(w) >= len(s) && w[len(w)-len(s):] == s }

func isASCIILower(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// stopWords are the English words too common in tool descriptions to
// tell tools apart.
var stopWords = map[string]bool{}

func init() {
	for _, w := range []string{
		"a", "an", "and", "are", "as", "at", "be", "been", "by", "can", "do", "does", "for", "from", "has", "have",
		"how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "should", "so",
		"that", "the", "their", "them", "then", "there", "these", "this", "those", "to", "was", "we", "were",
		"what", "when", "where", "which", "while", "who", "will", "with", "would", "you", "your", "want", "need",
		"some", "all", "any", "e", "g", "eg", "ie", "etc", "using", "use", "used", "tool", "tools", "given",
		"please", "way", "let", "about", "also", "one", "just",
	} {
		stopWords[w] = true
	}
}
