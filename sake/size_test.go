package sake

import (
	"testing"
	"unsafe"
)

// TestMessageFitsItsSizeClass guards the one allocation every message
// costs: with the 8-byte header Go adds to objects over 512 bytes, a
// Message of at most 888 bytes takes 896, one byte more takes 1024.
func TestMessageFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(message{}); n > 888 {
		t.Errorf("Message is %d bytes: over 888 it costs 1024 per message; make room before adding a field", n)
	}
}
