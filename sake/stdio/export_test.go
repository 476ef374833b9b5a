package stdio

import "time"

// SetHandoffAfter sets how long a request may run on the reading
// goroutine before another one takes the reading over, and returns what
// restores it. Tests that call it must not run in parallel.
func SetHandoffAfter(d time.Duration) (restore func()) {
	saved := handoffAfter
	handoffAfter = d
	return func() { handoffAfter = saved }
}
