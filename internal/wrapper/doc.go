// Package wrapper is childproof's one definition of a wrapper: a process
// between a launch and its worker that can drop or replace the worker's
// environment — a login or interactive shell (it runs profile and rc
// files), or su, runuser and sudo (they reset it). Lint classifies a
// script's commands with it, live verification a process chain's argv.
package wrapper
