// Package envres resolves, statically, what a launcher or dispatch shell
// script does to protected environment variables on the way to the worker,
// following every script it sources or execs, and reports it as lint
// findings. Nothing is run.
//
// Scripts are parsed with mvdan.cc/sh/v3/syntax (bash, or POSIX sh when the
// shebang says sh or dash) and walked by a flow-sensitive abstract
// interpreter, envres/interp (envres names its types by alias): each
// variable is unset, a known string, "the caller's value" or unknown,
// exported or not, with the statements that changed it.
// Branches are forked and merged, subshells dropped, functions walked where
// they are called, and exec ends a path. At each point where a worker
// starts (exec, a background launch, the end of a script), the protected
// variables are checked and the statements that changed them are reported.
// The rules are values (Rule) that report from the walk's facts (Pass);
// lintreport formats the findings.
// docs/lint.md has the details and the reasons for this design.
package envres
