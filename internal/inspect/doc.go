// Package inspect holds the read-only lookups over a /proc root and the
// kernel's socket table that verify, launcher and the CLI share: who
// listens on a port, which process a worker selector names, a process's
// live environment block and whether it rewrote it, a one-line description
// of a process, and the readiness probe. What counts as evidence, and what
// a check concludes from it, is package verify's; these are its
// instruments, kept out of its API.
package inspect
