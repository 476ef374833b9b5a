package gendemo

// LinuxOnly is left out: it is built on Linux only.
type LinuxOnly struct {
	// Field is left out.
	Field string
}
