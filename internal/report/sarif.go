package report

import (
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
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	Properties       map[string]any  `json:"properties,omitempty"`
}

const srcRoot = "%SRCROOT%"

// artifactLoc makes a relative URI under %SRCROOT% (absolute paths become
// file URIs).
func artifactLoc(file string) sarifArtifactLoc {
	if file == envres.CommandFile {
		return sarifArtifactLoc{URI: url.PathEscape(file), URIBaseID: srcRoot}
	}
	if filepath.IsAbs(file) {
		return sarifArtifactLoc{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()}
	}
	parts := strings.Split(filepath.ToSlash(file), "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return sarifArtifactLoc{URI: strings.Join(parts, "/"), URIBaseID: srcRoot}
}

func writeSARIF(w io.Writer, res *envres.Result, opts Options) error {
	rules := sortedRules()
	index := map[string]int{}
	driver := sarifDriver{Name: "childproof", InformationURI: "https://github.com/childproof/childproof", Version: opts.ToolVersion}
	for i, r := range rules {
		index[r.Name] = i
		level := "warning"
		if r.Severity == envres.SeverityError {
			level = "error"
		}
		doc := strings.Join(strings.Fields(r.Doc), " ")
		driver.Rules = append(driver.Rules, sarifRule{
			ID: r.Name, Name: r.Name,
			ShortDescription:     sarifText{Text: r.Short},
			FullDescription:      sarifText{Text: doc},
			Help:                 sarifText{Text: doc, Markdown: "**" + r.Name + "**: " + doc},
			DefaultConfiguration: sarifRuleConfig{Level: level},
			Properties:           map[string]any{"tags": []string{"shell", "environment"}, "problem.severity": level},
		})
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Artifacts: []sarifArtifact{}, Results: []sarifResult{}, ColumnKind: "utf16CodeUnits"}
	if abs, err := filepath.Abs(dir); err == nil {
		u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs) + "/"}).String()
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: u}}
	}
	for _, f := range res.Files {
		run.Artifacts = append(run.Artifacts, sarifArtifact{Location: artifactLoc(f)})
	}
	for _, f := range res.Findings {
		col := f.Column
		if line, ok := sourceLine(res, opts, f.File, f.Line); ok {
			col = utf16Column(line, f.Column)
		}
		level := "warning"
		if f.Severity == envres.SeverityError {
			level = "error"
		}
		r := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: level,
			Message: sarifText{Text: f.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: artifactLoc(f.File),
				Region:           sarifRegion{StartLine: max(f.Line, 1), StartColumn: max(col, 1)},
			}}},
		}
		if len(f.Variables) > 0 {
			r.Properties = map[string]any{"variables": f.Variables}
		}
		if len(f.Chain) > 1 {
			for i, c := range f.Chain[:len(f.Chain)-1] {
				r.RelatedLocations = append(r.RelatedLocations, sarifLocation{
					ID: i + 1,
					PhysicalLocation: sarifPhysical{
						ArtifactLocation: artifactLoc(c.File),
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
