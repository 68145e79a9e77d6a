// Package exectrace captures the environment each process of a launched
// tree received at its exec, with ptrace, before the program ran a single
// instruction (a process title written over the block later cannot hide
// it): Start starts the root traced, a Tracer keeps the captures by pid
// (Evidence, Inherited for a daemon forked without an exec, ForkedPids,
// Captured) and the signals delivered meanwhile (SignalsSeen), and Detach
// lets go of every tracee once the worker is verified. It knows nothing
// of a launch: package launcher starts it and reads it.
//
// Each traced start runs on a tracer thread, a goroutine locked to its OS
// thread that forks the root and traces the tree. Once the root is
// reaped, a thread with no child and no tracee left waits for the next
// traced start rather than ending (a thread made and ended costs about
// 100 µs of CPU): at most 4 wait, each for 2 s at most, and the others
// end as before (thread_linux.go says why the invariants hold).
package exectrace
