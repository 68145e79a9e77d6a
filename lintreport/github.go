package lintreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/childproof/childproof/envres"
)

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	return strings.ReplaceAll(s, "\n", "%0A")
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	s = escapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}

func writeGitHub(w io.Writer, res *envres.Result, opts Options) error {
	var b strings.Builder
	for _, d := range opts.Diagnostics {
		props := ""
		if d.File != "" {
			props = fmt.Sprintf("file=%s,line=%d,col=%d,", escapeProperty(d.File), max(d.Line, 1), max(d.Column, 1))
			if d.EndLine > 0 {
				props += fmt.Sprintf("endLine=%d,endColumn=%d,", d.EndLine, max(d.EndColumn, 1))
			}
		}
		fmt.Fprintf(&b, "::%s %stitle=%s::%s\n", d.Severity, props, escapeProperty("childproof "+d.rule()),
			escapeData(d.message()+" ["+d.rule()+"]"))
	}
	for _, f := range res.Findings {
		cmd := "warning"
		if f.Severity == envres.SeverityError {
			cmd = "error"
		}
		col := f.Column
		if line, ok := sourceLine(res, Options{}, f.File, f.Line); ok {
			col = f.CharColumn(line)
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd, escapeProperty(f.File), f.Line, col,
			escapeProperty("childproof "+f.Rule), escapeData(f.Message+" ["+f.Rule+"]"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
