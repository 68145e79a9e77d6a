// Package proc reads the kernel's per-process records under /proc: environ,
// stat, status, exe, cmdline, fds and children. The root is configurable so
// tests can point it at fixtures.
package proc
