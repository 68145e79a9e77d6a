// Package verify is the proof: it reads a running process tree's own
// kernel records — the worker's environ, the socket table and the fds that
// hold each listener, the process chain from the launch root down — and
// says whether a launch's settings reached the process that does the work.
// It never starts, signals or changes anything.
//
// A Verifier runs a Check and returns a Report of typed Problems;
// Fingerprint identifies a process across pid reuse; Holders names who
// holds a port; Explain shows a variable on every process of a tree. The
// launcher package uses it after a start, and `childproof verify --pid`,
// `explain` and `ps` use it on trees they did not start.
package verify
