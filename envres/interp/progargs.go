package interp

import (
	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/progs"
)

// progArgs returns fs as the command line envres/internal/progs reads:
// each word's text and whether it is known statically.
func progArgs(fs []expand.Field) []progs.Arg {
	args := make([]progs.Arg, len(fs))
	for i, f := range fs {
		args[i] = progs.Arg{S: f.Str, Known: f.Known}
	}
	return args
}
