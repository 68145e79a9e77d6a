package script

import (
	"fmt"
	"path/filepath"
)

// ParseError is a script that cannot be read or parsed (exit 2 in the CLI).
// It is plain data, safe for concurrent use while no one changes it.
type ParseError struct {
	// Pos is where parsing failed; Line is 0 when the file could not be
	// read at all.
	Pos
	Msg string
	// Err is the underlying error, if any.
	Err error
}

func (e *ParseError) Error() string {
	return e.Pos.String() + ": " + e.Msg
}

func (e *ParseError) Unwrap() error { return e.Err }

// At is where e is, named for a user in the directory wd, as `childproof
// check` shows it: File, relative to dir as LintLaunch reports it, made
// relative to wd when it lies below it (RebasePath; an absolute File stays
// as it is), then ":line:col" when e has a line.
func (e *ParseError) At(dir, wd string) string {
	loc := e.File
	if !filepath.IsAbs(loc) {
		loc = RebasePath(loc, dir, wd)
	}
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", loc, e.Line, e.Column)
	}
	return loc
}
