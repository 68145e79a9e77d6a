// Package importspec writes a childproof spec that launches what a shell
// launch script launches, without the script, from the envres analysis of
// that script (envres.Plan): the worker's argv, directory, env files,
// exported variables, port and worker selector. What the spec replaces or
// cannot express becomes a "# childproof import:" comment at the part of
// the spec it concerns, and a Note for the caller to list.
package importspec
