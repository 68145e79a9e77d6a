// Package exectrace captures the environment each process of a launched
// tree received at its exec, with ptrace, before the program ran a single
// instruction (a process title written over the block later cannot hide
// it): Start starts the root traced, a Tracer keeps the captures by pid
// (Evidence, Inherited for a daemon forked without an exec, ForkedPids,
// Captured) and the signals delivered meanwhile (SignalsSeen), and Detach
// lets go of every tracee once the worker is verified. It knows nothing
// of a launch: package launcher starts it and reads it.
package exectrace
