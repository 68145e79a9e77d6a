package lintreport

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
)

// MaxDiagnostics bounds how many diagnostics WriteDiagnostics shows; the
// rest are counted on one line.
const MaxDiagnostics = 20

// WriteDiagnostics writes a spec's diagnostics as the childproof command
// shows them: "file:line:col: severity: summary", the source line from
// files (by the subject's file name; a file not in files, or nil files,
// shows no line) with the range underlined, then the detail. A
// diagnostic without a range is one line: "childproof: error: summary:
// detail", the summary's first letter lowered (unless it starts an
// acronym). Summaries and details are written on one line each. After
// MaxDiagnostics it writes "childproof: … and N more diagnostics" and
// stops. With color the severity and the underline are ANSI bold red
// (error) or yellow (warning).
func WriteDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, color bool) {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	for i, d := range diags {
		if i == MaxDiagnostics {
			fmt.Fprintf(bw, "childproof: … and %d more diagnostics\n", len(diags)-i)
			break
		}
		sev, code := "error", "1;31"
		if d.Severity == hcl.DiagWarning {
			sev, code = "warning", "1;33"
		}
		if d.Subject == nil {
			msg := lowerFirst(d.Summary)
			if d.Detail != "" {
				msg += ": " + d.Detail
			}
			fmt.Fprintf(bw, "childproof: %s: %s\n", paint(code, sev), oneLine(msg))
			continue
		}
		r := d.Subject
		fmt.Fprintf(bw, "%s:%d:%d: %s: %s\n", r.Filename, r.Start.Line, r.Start.Column, paint(code, sev), oneLine(d.Summary))
		if f := files[r.Filename]; f != nil {
			if line, ok := Line(f.Bytes, r.Start.Line); ok {
				num := fmt.Sprint(r.Start.Line)
				width := r.End.Column - r.Start.Column
				if r.End.Line != r.Start.Line {
					width = -1
				}
				text, blanks, carets := Snippet(line, r.Start.Column, width, true)
				fmt.Fprintf(bw, "  %s | %s\n", num, text)
				fmt.Fprintf(bw, "  %s | %s%s\n", strings.Repeat(" ", len(num)), blanks, paint(code, carets))
			}
		}
		if d.Detail != "" {
			fmt.Fprintf(bw, "  %s\n", oneLine(d.Detail))
		}
	}
}

// WriteDiagnosticsJSON writes diags as {"diagnostics":[…]} (FromHCL's
// Diagnostic: rule, severity, summary, detail and the range), an empty
// list for none.
func WriteDiagnosticsJSON(w io.Writer, diags hcl.Diagnostics) error {
	out := struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
	}{Diagnostics: FromHCL(diags)}
	if out.Diagnostics == nil {
		out.Diagnostics = []Diagnostic{}
	}
	return JSON(w, out)
}

// oneLine keeps a message on its line: a line break would start what a
// problem matcher (gcc format) reads as another diagnostic.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// lowerFirst lowers s's first letter, unless the second is upper case too
// (an acronym).
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	if len(r) > 1 && unicode.IsUpper(r[1]) {
		return s // an acronym
	}
	r[0] = unicode.ToLower(r[0])
	return string(r)
}
