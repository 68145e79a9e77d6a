// Package proc reads a process's own kernel records below a /proc root:
// environ, stat, status, exe, cmdline, fds and children. FS.Root is the
// mount point, so tests and library users point an FS at fixtures (a
// directory laid out like /proc) and hand it to verify.Verifier or
// launcher.Options; Default reads the running system.
package proc
