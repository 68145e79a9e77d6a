// Package watchdog ends a foreground launch's tree when the process that
// started it is gone: one shell per process, in a session of its own,
// with which each foreground launch registers, that SIGKILLs every
// process carrying the marker of a launch still registered, or in its
// cgroup, once the process is gone.
package watchdog
