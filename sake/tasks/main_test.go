package tasks

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestMain fails the run if a manager's goroutine outlives the tests: every
// test shuts its managers down, and Shutdown waits for what it started.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if strings.Contains(stacks, "tasks.(*Manager).janitor") {
			fmt.Fprintln(os.Stderr, "a janitor goroutine outlived its manager:\n"+stacks)
			code = 1
		}
	}
	os.Exit(code)
}
