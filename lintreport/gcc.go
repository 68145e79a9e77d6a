package lintreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/childproof/childproof/envres"
)

// writeGCC writes one line per finding as GCC does,
// "FILE:LINE:COLUMN: SEVERITY: MESSAGE [RULE]", the form vim's
// errorformat, Emacs's compilation-mode and VS Code's $gcc problem
// matcher read. Columns count bytes, as GCC's and vim's do. A spec
// diagnostic without a range is "childproof: SEVERITY: …".
func writeGCC(w io.Writer, res *envres.Result, opts Options) error {
	var b strings.Builder
	for _, d := range opts.Diagnostics {
		where := "childproof"
		if d.File != "" {
			where = fmt.Sprintf("%s:%d:%d", d.File, max(d.Line, 1), max(d.Column, 1))
		}
		fmt.Fprintf(&b, "%s: %s: %s [%s]\n", where, d.Severity, oneLine(d.message()), d.rule())
	}
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s [%s]\n", f.File, max(f.Line, 1), max(f.Column, 1), f.Severity, oneLine(f.Message), f.Rule)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
