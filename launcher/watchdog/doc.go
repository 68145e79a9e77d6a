// Package watchdog ends a foreground launch's tree when the process that
// started it is gone: a shell, in a session of its own, that SIGKILLs
// every process carrying the launch's marker or in its cgroup unless the
// starter says the launch ended in its hands.
package watchdog
