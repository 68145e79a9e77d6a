package envres

import (
	"fmt"
	"slices"
	"strings"

	"github.com/childproof/childproof/envres/script"
	"github.com/childproof/childproof/internal/dotenv"
	"github.com/childproof/childproof/internal/inputfile"
)

// EnvFileTarget is where the env file that decides a protected name's
// value on the worker assigns it: the file `relaunch --in-env-file`
// writes the name's value into instead of refusing an env-file-clobber
// finding. It is plain data, safe for concurrent use while no one changes
// it.
type EnvFileTarget struct {
	// File is the env file's absolute path; empty when Blocked is
	// NotFromFile, SeveralFiles or NotAFile.
	File string
	// Line is the line of File that assigns the name; zero when File does
	// not assign it (an edit appends a line).
	Line int
	// Site is the load that clobbers the name (a clobbering load's
	// finding, File and Line only).
	Site Pos
	// Blocked says why the value cannot be written into a file; zero
	// (Editable) when it can.
	Blocked Blocker
	// Files are the env files the value may come from (SeveralFiles);
	// nil otherwise.
	Files []string
}

// Blocker is why a name's clobbering env file cannot be edited.
type Blocker int

const (
	Editable      Blocker = iota // File can take the value
	NotFromFile                  // the clobbered value does not come from a file the chain reads
	SeveralFiles                 // it may come from several env files (Files), depending on the path taken
	NotAFile                     // it comes from something that is not a file (a here-document, a command's output)
	GeneratedFile                // the chain writes File itself: an edit would be overwritten
)

// FileAt is where t's env file assigns the name, "FILE:LINE", or FILE
// alone when it does not assign it; FILE relative to wd when it lies
// below it (RebasePath; wd "": as recorded).
func (t EnvFileTarget) FileAt(wd string) string {
	if t.Line == 0 {
		return RebasePath(t.File, "", wd)
	}
	return fmt.Sprintf("%s:%d", RebasePath(t.File, "", wd), t.Line)
}

// SiteAt is the load that clobbers the name, "FILE:LINE" as the findings
// name it ("scripts/dispatch.sh:6").
func (t EnvFileTarget) SiteAt() string { return fmt.Sprintf("%s:%d", t.Site.File, t.Site.Line) }

// Why says why t's env file cannot take the value, as a clause ("its
// value there does not come from a file the chain reads"), with its files
// relative to wd when they lie below it (RebasePath; wd "": as recorded);
// "" when it can (Editable).
func (t EnvFileTarget) Why(wd string) string {
	switch t.Blocked {
	case NotFromFile:
		return "its value there does not come from a file the chain reads"
	case SeveralFiles:
		files := make([]string, len(t.Files))
		for i, f := range t.Files {
			files[i] = RebasePath(f, "", wd)
		}
		return "it may come from several env files (" + strings.Join(files, ", ") + "), depending on the path taken"
	case NotAFile:
		return "its value comes from something that is not a file (a here-document, a command's output)"
	case GeneratedFile:
		return "the chain writes " + RebasePath(t.File, "", wd) + " itself (a generated file): an edit would be overwritten"
	}
	return ""
}

// EnvFileTargets returns, for each name of names that an env-file-clobber
// finding of res clobbers, the env file whose load decides the worker's
// value — the last load that is not overwritten — and the line there.
func (res *Result) EnvFileTargets(names []string) map[string]EnvFileTarget {
	out := map[string]EnvFileTarget{}
	winners := map[string][]EnvSource{}
	sites := map[string]Pos{}
	for _, f := range res.Findings {
		if f.Rule != EnvFileClobber.Name {
			continue
		}
		site := Pos{File: f.File, Line: f.Line}
		for _, s := range f.Sources {
			if !slices.Contains(names, s.Variable) {
				continue
			}
			if _, ok := sites[s.Variable]; !ok || !s.Overwritten {
				sites[s.Variable] = site
			}
			if !s.Overwritten && !slices.Contains(winners[s.Variable], s) {
				winners[s.Variable] = append(winners[s.Variable], s)
			}
		}
		for _, v := range f.Variables {
			if slices.Contains(names, v) && !slices.ContainsFunc(f.Sources, func(s EnvSource) bool { return s.Variable == v }) {
				out[v] = EnvFileTarget{Site: site, Blocked: NotFromFile}
			}
		}
	}
	for v, ws := range winners {
		t := EnvFileTarget{Site: sites[v]}
		switch {
		case len(ws) > 1:
			t.Blocked = SeveralFiles
			for _, w := range ws {
				t.Files = append(t.Files, w.File)
			}
		case ws[0].File == "":
			t.Blocked = NotAFile
		case ws[0].Generated:
			t.File, t.Blocked = ws[0].File, GeneratedFile
		default:
			t.File = ws[0].File
			if b, err := inputfile.Read(t.File, script.MaxFileSize); err == nil {
				if entries, err := dotenv.Parse(t.File, b); err == nil {
					if e, ok := dotenv.Map(entries)[v]; ok {
						t.Line = e.Line
					}
				}
			}
		}
		if _, ok := out[v]; !ok || t.Blocked == Editable {
			out[v] = t
		}
	}
	return out
}

// WithoutClobbers returns res without the env-file-clobber findings
// that clobber only names of edited — what an edit of their env files
// fixes (relaunch --in-env-file). res is not changed.
func (res *Result) WithoutClobbers(edited []string) *Result {
	c := *res
	c.Findings = res.Findings[:0:0]
	for _, f := range res.Findings {
		if f.Rule == EnvFileClobber.Name && !slices.ContainsFunc(f.Variables, func(v string) bool { return !slices.Contains(edited, v) }) {
			continue
		}
		c.Findings = append(c.Findings, f)
	}
	return &c
}
