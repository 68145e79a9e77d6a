package lintreport

import (
	"encoding/xml"
	"io"

	"github.com/childproof/childproof/envres"
)

// Checkstyle's XML report (checkstyle's XMLLogger), which Jenkins'
// warnings-ng, GitLab's and many CI pages read:
//
//	<checkstyle version="4.3">
//	  <file name="run.sh">
//	    <error line="3" column="1" severity="error" message="…" source="childproof.env-file-clobber"/>
//	  </file>
//	</checkstyle>

// Checkstyle is the root element of a checkstyle report. It is plain data,
// safe for concurrent use while no one changes it.
type Checkstyle struct {
	XMLName xml.Name         `xml:"checkstyle"`
	Version string           `xml:"version,attr"`
	Files   []CheckstyleFile `xml:"file"`
}

// CheckstyleFile is a file element: every file lint read is listed, with
// the errors found in it. It is plain data, safe for concurrent use while
// no one changes it.
type CheckstyleFile struct {
	Name   string            `xml:"name,attr"`
	Errors []CheckstyleError `xml:"error"`
}

// CheckstyleError is one finding; Column counts characters (1-based),
// Source is "childproof.RULE". It is plain data, safe for concurrent use
// while no one changes it.
type CheckstyleError struct {
	Line     int    `xml:"line,attr"`
	Column   int    `xml:"column,attr,omitempty"`
	Severity string `xml:"severity,attr"`
	Message  string `xml:"message,attr"`
	Source   string `xml:"source,attr"`
}

// checkstyleVersion is the version attribute checkstyle itself writes.
const checkstyleVersion = "4.3"

func writeCheckstyle(w io.Writer, res *envres.Result, opts Options) error {
	out := Checkstyle{Version: checkstyleVersion}
	index := map[string]int{}
	file := func(name string) *CheckstyleFile {
		i, ok := index[name]
		if !ok {
			i = len(out.Files)
			index[name] = i
			out.Files = append(out.Files, CheckstyleFile{Name: name})
		}
		return &out.Files[i]
	}
	for _, f := range res.Files {
		file(f)
	}
	for _, d := range opts.Diagnostics {
		// A diagnostic without a range is listed under the file "".
		cf := file(d.File)
		cf.Errors = append(cf.Errors, CheckstyleError{Line: max(d.Line, 1), Column: d.Column, Severity: string(d.Severity),
			Message: d.message(), Source: "childproof." + d.rule()})
	}
	for _, f := range res.Findings {
		col := f.Column
		if line, ok := sourceLine(res, opts, f.File, f.Line); ok {
			col = f.CharColumn(line)
		}
		cf := file(f.File)
		cf.Errors = append(cf.Errors, CheckstyleError{Line: max(f.Line, 1), Column: max(col, 1), Severity: string(f.Severity),
			Message: f.Message, Source: "childproof." + f.Rule})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
