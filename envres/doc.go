// Package envres resolves, statically, what a launcher or dispatch shell
// script does to protected environment variables on the way to the worker,
// following every script it sources or execs, and reports it as lint
// findings. Nothing is run.
package envres
