// Package readiness waits for a launched worker to be ready: probes
// paced by what happens in its tree (a line of output, a fork, exec or
// exit, a listening socket that appears) within a budget of probes a
// second, until a check passes, the worker exits or the deadline
// passes. It knows no launch: package launcher hands it the worker's
// pid and pidfd, the proc FS, the tree's events and members, and says
// what a failure means.
package readiness
