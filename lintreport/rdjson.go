package lintreport

import (
	"io"
	"regexp"
	"strings"

	"github.com/childproof/childproof/envres"
)

// reviewdog's Diagnostic Result JSON (rdjson; reviewdog -f=rdjson), the
// proto/rdf/jsonschema/DiagnosticResult.json schema: positions are
// 1-based, columns count UTF-8 bytes, a range's end is exclusive.

type rdPosition struct {
	Line   int `json:"line"`
	Column int `json:"column,omitempty"`
}

type rdRange struct {
	Start rdPosition  `json:"start"`
	End   *rdPosition `json:"end,omitempty"`
}

type rdLocation struct {
	Path  string   `json:"path"`
	Range *rdRange `json:"range,omitempty"`
}

type rdSource struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type rdCode struct {
	Value string `json:"value"`
	URL   string `json:"url,omitempty"`
}

type rdSuggestion struct {
	Range rdRange `json:"range"`
	Text  string  `json:"text"`
}

type rdDiagnostic struct {
	Message     string         `json:"message"`
	Location    rdLocation     `json:"location"`
	Severity    string         `json:"severity"`
	Source      *rdSource      `json:"source,omitempty"`
	Code        *rdCode        `json:"code,omitempty"`
	Suggestions []rdSuggestion `json:"suggestions,omitempty"`
}

type rdResult struct {
	Source      rdSource       `json:"source"`
	Diagnostics []rdDiagnostic `json:"diagnostics"`
}

// rulesURL documents every rule (docs/lint.md's table).
const rulesURL = "https://github.com/childproof/childproof/blob/main/docs/lint.md#rules"

func rdSeverity(s envres.Severity) string {
	if s == envres.SeverityError {
		return "ERROR"
	}
	return "WARNING"
}

func writeRDJSON(w io.Writer, res *envres.Result, opts Options) error {
	src := rdSource{Name: "childproof", URL: "https://github.com/childproof/childproof"}
	out := rdResult{Source: src, Diagnostics: []rdDiagnostic{}}
	for _, d := range opts.Diagnostics {
		rd := rdDiagnostic{Message: d.message(), Severity: rdSeverity(d.Severity), Code: &rdCode{Value: d.rule(), URL: rulesURL}}
		if d.File != "" {
			// HCL columns count characters; the line is not at hand here,
			// so the range is the line (reviewdog places a comment by line).
			rd.Location = rdLocation{Path: d.File, Range: &rdRange{Start: rdPosition{Line: max(d.Line, 1)}}}
		}
		out.Diagnostics = append(out.Diagnostics, rd)
	}
	for _, f := range res.Findings {
		rd := rdDiagnostic{
			Message:  f.Message,
			Location: rdLocation{Path: f.File, Range: &rdRange{Start: rdPosition{Line: max(f.Line, 1), Column: max(f.Column, 1)}}},
			Severity: rdSeverity(f.Severity),
			Code:     &rdCode{Value: f.Rule, URL: rulesURL},
		}
		if s, ok := keepOverrideFix(res, opts, f); ok {
			rd.Suggestions = []rdSuggestion{s}
		}
		out.Diagnostics = append(out.Diagnostics, rd)
	}
	return JSON(w, out)
}

var shellName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// loadStart are the first words of a line that is one env-file load
// statement list a keep-the-override fix may wrap.
var loadStart = []string{". ", "source ", "set -a", "set -o allexport", "export $(", "export \"$(", "eval "}

// keepOverrideFix is the one fix offered: for an env-file-clobber on a line
// that is a plain load statement list in a script file (not inside a
// bash -c string, a here-document or package.json), keep the re-source and
// re-export the launcher's value after it —
//
//	_childproof_keep_X=${X-}
//	set -a; . ./.env; set +a
//	export X="$_childproof_keep_X"; unset _childproof_keep_X
//
// as one suggestion replacing the line. Anything else — a line continued
// from or onto another, a load inside a compound command or after &&/||,
// an exec on the line (the restore would never run), a redirect loop —
// gets no suggestion: the finding alone says what to do.
func keepOverrideFix(res *envres.Result, opts Options, f envres.Finding) (rdSuggestion, bool) {
	if f.Rule != envres.EnvFileClobber.Name || f.InString || len(f.Variables) == 0 || f.File == envres.CommandFile ||
		strings.HasSuffix(f.File, ".json") {
		return rdSuggestion{}, false
	}
	for _, v := range f.Variables {
		if !shellName.MatchString(v) {
			return rdSuggestion{}, false
		}
	}
	line, ok := sourceLine(res, opts, f.File, f.Line)
	if !ok || binaryish(line) {
		return rdSuggestion{}, false
	}
	if f.Line > 1 {
		prev, ok := sourceLine(res, opts, f.File, f.Line-1)
		p := strings.TrimSpace(prev)
		if !ok || strings.HasSuffix(p, "\\") || strings.HasSuffix(p, "|") || strings.HasSuffix(p, "&&") || strings.HasSuffix(p, "||") {
			return rdSuggestion{}, false
		}
	}
	body := strings.TrimLeft(line, " \t")
	indent := line[:len(line)-len(body)]
	trimmed := strings.TrimSpace(body)
	starts := false
	for _, s := range loadStart {
		starts = starts || strings.HasPrefix(trimmed, s)
	}
	if !starts || strings.HasSuffix(trimmed, "\\") || strings.Contains(trimmed, "&&") || strings.Contains(trimmed, "||") ||
		strings.Contains(trimmed, "<<") || strings.Contains(trimmed, "exec ") || strings.Contains(trimmed, "`") ||
		strings.HasPrefix(trimmed, "#") || strings.Contains(trimmed, "\r") {
		return rdSuggestion{}, false
	}
	var save, restore, unset []string
	for _, v := range f.Variables {
		keep := "_childproof_keep_" + v
		save = append(save, keep+"=${"+v+"-}")
		restore = append(restore, "export "+v+"=\"$"+keep+"\"")
		unset = append(unset, keep)
	}
	text := indent + strings.Join(save, " ") + "\n" + line + "\n" +
		indent + strings.Join(restore, "; ") + "; unset " + strings.Join(unset, " ") + "\n"
	return rdSuggestion{
		Range: rdRange{Start: rdPosition{Line: f.Line, Column: 1}, End: &rdPosition{Line: f.Line + 1, Column: 1}},
		Text:  text,
	}, true
}
