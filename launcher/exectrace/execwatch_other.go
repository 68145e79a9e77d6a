//go:build !linux

package exectrace

import "time"

// Tracer captures exec-time environment evidence with ptrace, on Linux
// only (execwatch_linux.go); elsewhere there is none. Safe for concurrent
// use: it holds nothing.
type Tracer struct{}

// LetIdleGo has no tracer threads to let go here.
func LetIdleGo(timeout time.Duration) bool { return true }
