package interp

import "github.com/childproof/childproof/envres/script"

// Pos is a place in a script (script.Pos). It is plain data, safe for
// concurrent use while no one changes it.
type Pos = script.Pos

// ParseError is a script that cannot be read or parsed (script.ParseError).
// It is plain data, safe for concurrent use while no one changes it.
type ParseError = script.ParseError
