package envres

import (
	"github.com/childproof/childproof/envres/internal/nesting"
	"github.com/childproof/childproof/envres/script"
)

// MaxNesting bounds how deep a script may nest before it is parsed: each
// open (, { group, $(, $((, ${, `…`, "…" holding an expansion, if, while,
// until, for, select and case counts one, and so does each && || | ! in
// the statement it is in (mvdan.cc/sh parses every one of these by
// recursion: 300,000 nested '(' or "$(…" overflowed the Go stack, a
// fatal error after more than 1 GB, and 300,000 nested if, { or ${X:-
// took 800-900 MB). No script a person writes comes near it.
const MaxNesting = nesting.Max

// CheckNesting scans src once (linear time, memory bounded by
// MaxNesting) and returns a *ParseError at the first construct that
// nests deeper than MaxNesting, or nil. It errs towards counting: a
// construct it cannot tell apart counts as an opener, and a closer that
// does not match the innermost opener closes nothing.
func CheckNesting(name string, src []byte) error { return script.CheckNesting(name, src) }
