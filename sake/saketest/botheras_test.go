package saketest_test

import (
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/saketest"
)

// BothEras returns once both subtests have run: what the test checks after
// it sees both runs.
func TestBothErasReturnsAfterBothRuns(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, Greeter{}, opts...)
		if res, err := c.CallTool("greet", map[string]any{"name": "Rui"}); err != nil || res.Text() != "Hello, Rui!" {
			t.Errorf("greet = %v, %v", res, err)
		}
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, c.Session().Era.String())
	})
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 2 || ran[0] == ran[1] {
		t.Errorf("after BothEras the body had run in %q, want both eras", ran)
	}
}
