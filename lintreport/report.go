package lintreport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/inputfile"
)

// Formats lists the format names Write accepts.
var Formats = []string{"text", "json", "sarif", "github", "gcc", "checkstyle", "rdjson"}

// ErrUnknownFormat is returned (wrapped) for a format not in Formats.
var ErrUnknownFormat = errors.New("unknown format")

// Options tune the output. They are plain data, safe for concurrent use
// while no one changes them.
type Options struct {
	// Color turns on ANSI colour in the text format.
	Color bool
	// Dir is the directory the findings' relative paths are relative to;
	// SARIF uses it as the %SRCROOT% base and to read sources missing
	// from the result. Empty means the current directory.
	Dir string
	// ToolVersion is reported in SARIF.
	ToolVersion string
	// Diagnostics are the spec's problems (check), written in every
	// format but text, where the caller prints them.
	Diagnostics []Diagnostic
}

// Write writes res to w in format.
func Write(w io.Writer, format string, res *envres.Result, opts Options) error {
	if res == nil {
		res = &envres.Result{}
	}
	switch format {
	case "text":
		return writeText(w, res, opts)
	case "json":
		return writeJSON(w, res, opts)
	case "sarif":
		return writeSARIF(w, res, opts)
	case "github":
		return writeGitHub(w, res, opts)
	case "gcc":
		return writeGCC(w, res, opts)
	case "checkstyle":
		return writeCheckstyle(w, res, opts)
	case "rdjson":
		return writeRDJSON(w, res, opts)
	}
	return fmt.Errorf("%w %q", ErrUnknownFormat, format)
}

// maxSourceSize bounds a source file read for a finding's line (the
// linter reads no larger script).
const maxSourceSize = 32 << 20

// sourceLine returns line n (1-based) of file, without its newline.
func sourceLine(res *envres.Result, opts Options, file string, n int) (string, bool) {
	src, ok := res.Sources[file]
	if !ok {
		p := file
		if !filepath.IsAbs(p) && opts.Dir != "" {
			p = filepath.Join(opts.Dir, p)
		}
		b, err := inputfile.Read(p, maxSourceSize)
		if err != nil {
			return "", false
		}
		src = b
	}
	return Line(src, n)
}

// Line returns line n (1-based) of src without its line ending.
func Line(src []byte, n int) (string, bool) {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return strings.TrimSuffix(string(src), "\r"), true
}

// jsonFinding is envres.Finding with every key present: variables and
// chain are lists, empty rather than absent, so scripts need no null check.
// (The two fields shadow the embedded ones, which omit themselves when
// empty; encoding/json keeps the field order: rule … message, variables,
// chain.)
type jsonFinding struct {
	envres.Finding
	Variables []string   `json:"variables"`
	Chain     []jsonLink `json:"chain"`
}

// jsonLink is a chain link in JSON: its file and line (contract §5).
type jsonLink struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func writeJSON(w io.Writer, res *envres.Result, opts Options) error {
	out := struct {
		Findings    []jsonFinding `json:"findings"`
		Files       []string      `json:"files"`
		Diagnostics []Diagnostic  `json:"diagnostics,omitempty"`
	}{Findings: []jsonFinding{}, Files: res.Files, Diagnostics: opts.Diagnostics}
	for _, f := range res.Findings {
		jf := jsonFinding{Finding: f, Variables: f.Variables, Chain: []jsonLink{}}
		if jf.Variables == nil {
			jf.Variables = []string{}
		}
		for _, c := range f.Chain {
			jf.Chain = append(jf.Chain, jsonLink{c.File, c.Line})
		}
		if f.Chain == nil {
			jf.Chain = []jsonLink{{f.File, f.Line}}
		}
		out.Findings = append(out.Findings, jf)
	}
	if out.Files == nil {
		out.Files = []string{}
	}
	return JSON(w, out)
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiPurple = "\x1b[1;35m"
	ansiGreen  = "\x1b[1;32m"
	ansiCyan   = "\x1b[36m"
)

func writeText(w io.Writer, res *envres.Result, opts Options) error {
	var b strings.Builder
	paint := func(code, s string) string {
		if !opts.Color {
			return s
		}
		return code + s + ansiReset
	}
	errs, warns := 0, 0
	for _, f := range res.Findings {
		sev := paint(ansiPurple, "warning:")
		if f.Severity == envres.SeverityError {
			sev = paint(ansiRed, "error:")
			errs++
		} else {
			warns++
		}
		fmt.Fprintf(&b, "%s %s %s %s\n", paint(ansiBold, fmt.Sprintf("%s:%d:%d:", f.File, f.Line, f.Column)), sev,
			f.Message, paint(ansiCyan, "["+f.Rule+"]"))
		if line, ok := sourceLine(res, opts, f.File, f.Line); ok && !binaryish(line) {
			text, blanks, caret := Snippet(line, byteToRuneCol(line, f.Column), 1, false)
			fmt.Fprintf(&b, "    %s\n", text)
			fmt.Fprintf(&b, "    %s\n", paint(ansiGreen, blanks+caret))
		}
		if len(f.Chain) > 1 {
			var parts []string
			for _, c := range f.Chain {
				parts = append(parts, fmt.Sprintf("%s:%d", c.File, c.Line))
			}
			fmt.Fprintf(&b, "    via %s\n", strings.Join(parts, " → "))
		}
	}
	if len(res.Findings) > 0 {
		fmt.Fprintf(&b, "%d error(s), %d warning(s)\n", errs, warns)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func binaryish(s string) bool { return !utf8.ValidString(s) || strings.ContainsRune(s, 0) }

// utf16Column converts a 1-based byte column on line to a 1-based column
// in UTF-16 code units (SARIF's default columnKind).
func utf16Column(line string, col int) int {
	if col < 1 {
		return 1
	}
	if col-1 > len(line) {
		return len(utf16.Encode([]rune(line))) + 1 + (col - 1 - len(line))
	}
	n := 0
	for _, r := range line[:col-1] {
		// An invalid byte decodes as U+FFFD: one code unit, as a SARIF
		// consumer that decodes the file leniently counts it.
		n += utf16.RuneLen(r)
	}
	return n + 1
}
