package sake

import (
	"strconv"
	"strings"
	"testing"
)

// The client-capabilities cache is bounded in bytes whatever callers send:
// large values are never kept, and many distinct small ones never hold more
// than maxCapabilityCacheBytes.
func TestCapabilitiesCacheBoundedInBytes(t *testing.T) {
	cached := func() (entries, bytes int) {
		capsCache.RLock()
		defer capsCache.RUnlock()
		for k := range capsCache.m {
			bytes += len(k)
		}
		return len(capsCache.m), bytes
	}
	big := `{"experimental":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`
	for i := 0; i < 24; i++ {
		raw := []byte(big[:len(big)-3] + strconv.Itoa(i) + `"}}`)
		if _, err := capabilitiesOf(raw); err != nil {
			t.Fatal(err)
		}
	}
	if _, bytes := cached(); bytes > maxCapabilityCacheBytes {
		t.Fatalf("24 distinct 1 MiB capabilities pinned %d bytes", bytes)
	}
	pad := strings.Repeat("b", maxCachedCapabilityBytes-100)
	for i := 0; i < 4*maxCapabilityCacheBytes/maxCachedCapabilityBytes; i++ {
		raw := []byte(`{"experimental":{"` + strconv.Itoa(i) + `":"` + pad + `"}}`)
		c1, err := capabilitiesOf(raw)
		if err != nil {
			t.Fatal(err)
		}
		if c2, _ := capabilitiesOf(raw); c1 != c2 {
			t.Fatalf("a small value was not cached")
		}
		if entries, bytes := cached(); bytes > maxCapabilityCacheBytes || entries == 0 {
			t.Fatalf("after %d values: %d entries, %d bytes", i+1, entries, bytes)
		}
	}
}
