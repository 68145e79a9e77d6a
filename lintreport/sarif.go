package lintreport

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/envres"
)

// SARIF 2.1.0, the subset GitHub code scanning reads.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Artifacts          []sarifArtifact             `json:"artifacts"`
	Results            []sarifResult               `json:"results"`
	ColumnKind         string                      `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifText       `json:"shortDescription"`
	FullDescription      sarifText       `json:"fullDescription"`
	Help                 sarifText       `json:"help"`
	DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
	Properties           map[string]any  `json:"properties,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifArtifact struct {
	Location sarifArtifactLoc `json:"location"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           sarifRegion      `json:"region"`
}

type sarifLocation struct {
	ID               int           `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifText    `json:"message,omitempty"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations,omitempty"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	// PartialFingerprints let code scanning track an alert across commits.
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

const srcRoot = "%SRCROOT%"

// fileURI is the file URI of an absolute local path: file:///a/b, and on
// Windows file:///C:/a/b.
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// artifactLoc makes a URI relative to %SRCROOT% (the repository's root),
// or an absolute file URI for a file outside it.
func (l locator) artifactLoc(file string) sarifArtifactLoc {
	if file == envres.CommandFile {
		return sarifArtifactLoc{URI: url.PathEscape(file), URIBaseID: srcRoot}
	}
	rel := l.rel(file)
	if rel == "" {
		abs := file
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(l.dir, abs)
		}
		return sarifArtifactLoc{URI: fileURI(abs)}
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return sarifArtifactLoc{URI: strings.Join(parts, "/"), URIBaseID: srcRoot}
}

// fingerprintKey names childproof's partialFingerprints entry: a hash of
// the rule, the repository-relative file, the text of the finding's line
// and its variables (not the line number), so that code scanning keeps
// tracking an alert when lines above it move.
const fingerprintKey = "childproofFindingHash/v1"

func fingerprint(seen map[string]int, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	k := hex.EncodeToString(h[:12])
	seen[k]++
	return fmt.Sprintf("%s:%d", k, seen[k])
}

func sarifLevel(severity envres.Severity) string {
	if severity == envres.SeverityError {
		return "error"
	}
	return "warning"
}

func writeSARIF(w io.Writer, res *envres.Result, opts Options) error {
	rules := envres.Rules() // a fixed order, so ruleIndex values do not change between runs
	index := map[string]int{}
	driver := sarifDriver{Name: "childproof", InformationURI: "https://github.com/childproof/childproof", Version: opts.ToolVersion}
	addRule := func(name string, severity envres.Severity, short, doc string) {
		index[name] = len(driver.Rules)
		level := sarifLevel(severity)
		doc = strings.Join(strings.Fields(doc), " ")
		driver.Rules = append(driver.Rules, sarifRule{
			ID: name, Name: name,
			ShortDescription:     sarifText{Text: short},
			FullDescription:      sarifText{Text: doc},
			Help:                 sarifText{Text: doc, Markdown: "**" + name + "**: " + doc},
			DefaultConfiguration: sarifRuleConfig{Level: level},
			Properties:           map[string]any{"tags": []string{"shell", "environment"}, "problem.severity": level},
		})
	}
	for _, r := range rules {
		addRule(r.Name, r.Severity, r.Short, r.Doc)
	}
	addRule(SpecRule, envres.SeverityError, "the spec is invalid or has a problem",
		`A problem of the childproof spec itself (an HCL diagnostic): an unknown attribute, a wrong type, a
port out of range, a name that will be removed before launch. The result points at the range in the
.hcl file; its message is the diagnostic's summary and detail.`)
	loc := newLocator(opts.Dir)
	run := sarifRun{Tool: sarifTool{Driver: driver}, Artifacts: []sarifArtifact{}, Results: []sarifResult{}, ColumnKind: "utf16CodeUnits"}
	run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(loc.root) + "/"}).String()}}
	seenArtifact := map[string]bool{}
	addArtifact := func(f string) {
		a := loc.artifactLoc(f)
		if !seenArtifact[a.URI] {
			seenArtifact[a.URI] = true
			run.Artifacts = append(run.Artifacts, sarifArtifact{Location: a})
		}
	}
	for _, f := range res.Files {
		addArtifact(f)
	}
	seen := map[string]int{}
	for _, d := range opts.Diagnostics {
		r := sarifResult{RuleID: d.rule(), Level: sarifLevel(d.Severity), Message: sarifText{Text: d.message()}}
		if i, ok := index[r.RuleID]; ok {
			r.RuleIndex = i
		} else {
			r.RuleID, r.RuleIndex = SpecRule, index[SpecRule]
		}
		if d.File != "" {
			addArtifact(d.File)
			reg := sarifRegion{StartLine: max(d.Line, 1), StartColumn: max(d.Column, 1)}
			if d.EndLine >= d.Line && d.EndLine > 0 {
				reg.EndLine, reg.EndColumn = d.EndLine, max(d.EndColumn, 1)
			}
			r.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: loc.artifactLoc(d.File), Region: reg}}}
		}
		r.PartialFingerprints = map[string]string{fingerprintKey: fingerprint(seen, r.RuleID, loc.rel(d.File), d.Summary, d.Detail)}
		run.Results = append(run.Results, r)
	}
	for _, f := range res.Findings {
		col := f.Column
		text := ""
		if line, ok := sourceLine(res, opts, f.File, f.Line); ok {
			col = utf16Column(line, f.Column)
			text = strings.TrimSpace(line)
		}
		r := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message: sarifText{Text: f.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: loc.artifactLoc(f.File),
				Region:           sarifRegion{StartLine: max(f.Line, 1), StartColumn: max(col, 1)},
			}}},
			PartialFingerprints: map[string]string{fingerprintKey: fingerprint(seen, f.Rule, loc.rel(f.File), text, strings.Join(f.Variables, ","))},
		}
		if len(f.Variables) > 0 {
			r.Properties = map[string]any{"variables": f.Variables}
		}
		if len(f.Chain) > 1 {
			for i, c := range f.Chain[:len(f.Chain)-1] {
				r.RelatedLocations = append(r.RelatedLocations, sarifLocation{
					ID: i + 1,
					PhysicalLocation: sarifPhysical{
						ArtifactLocation: loc.artifactLoc(c.File),
						Region:           sarifRegion{StartLine: max(c.Line, 1)},
					},
					Message: &sarifText{Text: "reached from here"},
				})
			}
		}
		run.Results = append(run.Results, r)
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
	return JSON(w, log)
}
