// Package wakeup is an eventfd one goroutine rings and another polls
// beside its other fds: a launch's readiness waits are woken by the
// tree's output lines and its process events through it.
package wakeup
