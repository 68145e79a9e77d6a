// Package sigtree is a launched process tree as something to signal: its
// process group through the leader's pidfd, its cgroup, the processes
// carrying its marker and members pinned by pidfd, each signalled through
// a pidfd opened first and its membership re-checked, never through a
// bare pid. Tree.Terminate sends the stop signal, waits, and SIGKILLs what
// is left; Root is the exec'd root and ExitStatus how it ended. It holds
// state (pidfds, the members watched across a stop) where package
// proctree judges a /proc snapshot; it knows nothing of a launch.
package sigtree
