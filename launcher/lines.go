package launcher

import "github.com/childproof/childproof/launcher/output"

// Lines is an io.Writer that keeps the lines written to it
// (Options.Stdout, Options.Stderr or Output) and waits for them: a test
// reads or waits on one stream of a server's output (output.Lines). It is
// safe for concurrent use.
type Lines = output.Lines

// The bounds of a Lines (output.MaxLines and the rest): it keeps the last
// MaxLines lines and at most MaxLinesBytes of them, and a line longer
// than MaxLineBytes as pieces of MaxLineBytes.
const (
	MaxLines      = output.MaxLines
	MaxLinesBytes = output.MaxLinesBytes
	MaxLineBytes  = output.MaxLineBytes
)
