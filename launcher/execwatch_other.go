//go:build !linux

package launcher

// execWatch captures exec-time environment evidence with ptrace, on Linux
// only (execwatch_linux.go); elsewhere there is none.
type execWatch struct{}
