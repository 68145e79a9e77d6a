// Package importspec turns a shell launch script into a childproof spec
// that launches what the script launches, without the script. Import reads
// the script with envres's analysis (envres.Plan; nothing runs) and writes
// the worker's argv, directory, env files, exported variables, port and
// worker selector. What the spec replaces or cannot express becomes a
// "# childproof import:" comment at the part of the spec it concerns, and
// a Note for the caller to list. Check validates and lints the written
// spec as `childproof check` does; ImportTo is the whole pipeline (import,
// write atomically, check where it lies).
package importspec
