package script

import (
	"fmt"

	"github.com/childproof/childproof/envres/internal/nesting"
)

// CheckNesting scans src once (linear time, memory bounded by
// nesting.Max) and returns a *ParseError at the first construct that
// nests deeper than nesting.Max, or nil. It errs towards counting: a
// construct it cannot tell apart counts as an opener, and a closer that
// does not match the innermost opener closes nothing.
func CheckNesting(name string, src []byte) error {
	r := nesting.Scan(src)
	if !r.Refused {
		return nil
	}
	return &ParseError{Pos: Pos{File: name, Line: r.Line, Column: r.Column},
		Msg: fmt.Sprintf("nesting too deep: more than %d levels of brackets, expansions, compound commands and &&/||/| chains; the script is refused before it is parsed", nesting.Max)}
}
