// Package expand is envres/interp's value domain and word evaluation, as
// mvdan.cc/sh/v3/expand is its interpreter's: a variable's abstract value
// (unset, a known string, "the caller's value" or unknown, exported or not,
// with the statements that changed it), the copy-on-write layers that hold
// them, and the evaluation of words, parameter expansions, patterns,
// globs (Glob) and the command substitutions scripts use to find their own
// directory against a Scope, also as the all-interfaces check reads an
// address (BindText). The walk that uses it is its Host: it owns the statements (E, a
// variable's origins) and what an assignment records.
package expand
