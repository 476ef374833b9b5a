package middleware

import "testing"

// Two spellings of the same arguments have one canonical form; different
// arguments do not; what is not JSON has none.
func TestCanonicalJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{``, ``},
		{`null`, ``},
		{` {} `, ``},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"{ \"b\" : [ {\"y\":1, \"x\":2} , 3 ],\n\"a\":\"s p\" }", `{"a":"s p","b":[{"x":2,"y":1},3]}`},
		{`{"\u0061":1,"b":{}}`, `{"a":1,"b":{}}`},
		{`{"k":"<&>\u2028"}`, `{"k":"<&>\u2028"}`},
		{`[3,1]`, `[3,1]`},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"i":9,"h":8}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`},
	} {
		got, ok := canonicalJSON([]byte(c.in))
		if !ok || string(got) != c.want {
			t.Errorf("canonicalJSON(%s) = %s, %v; want %s", c.in, got, ok, c.want)
		}
	}
	for _, bad := range []string{`{"a":}`, `{"a":1} {}`, `{"a"`, "\xff"} {
		if _, ok := canonicalJSON([]byte(bad)); ok {
			t.Errorf("canonicalJSON(%q) accepted", bad)
		}
	}
}
