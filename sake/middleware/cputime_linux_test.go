package middleware_test

import (
	"syscall"
	"time"
	"unsafe"
)

// cpuTime is the CPU time the process has used, on all its threads, to
// the nanosecond (CLOCK_PROCESS_CPUTIME_ID): what a benchmark costs,
// however busy the machine is.
func cpuTime() (time.Duration, bool) {
	const clockProcessCPUTime = 2
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
