//go:build !linux

package exectrace

// Tracer captures exec-time environment evidence with ptrace, on Linux
// only (execwatch_linux.go); elsewhere there is none. Safe for concurrent
// use: it holds nothing.
type Tracer struct{}
