package client

import "testing"

// TestParseID: a stdio response is matched to its call by the integer id
// the client wrote; any other id matches no call.
func TestParseID(t *testing.T) {
	for _, c := range []struct {
		raw  string
		id   int64
		want bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"123456789012345678", 123456789012345678, true},
		{"1234567890123456789", 0, false}, // longer than the client's ids get
		{`"7"`, 0, false},
		{"-7", 0, false},
		{"7.0", 0, false},
		{"", 0, false},
		{"null", 0, false},
	} {
		id, ok := parseID([]byte(c.raw))
		if ok != c.want || (ok && id != c.id) {
			t.Errorf("parseID(%s) = %d, %v; want %d, %v", c.raw, id, ok, c.id, c.want)
		}
	}
}
