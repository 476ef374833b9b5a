package bridge

import (
	"strings"
	"testing"
)

// This test links no server, so nothing has filled the bridge.
func TestRootPanicsUntilSet(t *testing.T) {
	func() {
		defer func() {
			r, _ := recover().(string)
			if !strings.Contains(r, "has not filled the bridge") {
				t.Errorf("Root before Set panicked with %q", r)
			}
		}()
		Root()
		t.Error("Root before Set returned")
	}()
	f := &Funcs{}
	Set(f)
	t.Cleanup(func() { root = nil })
	if Root() != f {
		t.Error("Root does not return what Set recorded")
	}
	defer func() {
		if recover() == nil {
			t.Error("a second Set did not panic")
		}
	}()
	Set(&Funcs{})
}
