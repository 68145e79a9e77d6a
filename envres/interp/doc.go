// Package interp is envres's static shell interpreter: it walks launcher
// and dispatch scripts, read and parsed by envres/script (bash, or POSIX sh
// or mksh by their shebang), with a flow-sensitive abstract interpreter, and
// records the facts the lint rules report from (Facts) and, for Plan, where
// workers start (Planner). Nothing is run.
//
// Each variable is unset, a known string, "the caller's value" or unknown,
// exported or not, with the statements that changed it. Branches are
// forked and merged, subshells dropped, functions walked where they are
// called, and exec ends a path. At each point where a worker starts (exec,
// a background launch, the end of a script), the protected variables are
// checked and the statements that changed them are recorded as facts.
// envres holds the rules and the findings; docs/lint.md has the details.
package interp
