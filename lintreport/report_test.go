package lintreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/envres"
)

func sample() *envres.Result {
	return &envres.Result{
		Findings: []envres.Finding{
			{Rule: "env-file-clobber", Severity: "error", Pos: envres.Pos{File: "scripts/dispatch.sh", Line: 3, Column: 9},
				Message: "clobbered, 100% sure:\nreally", Variables: []string{"HF_HUB_ENABLE_HF_TRANSFER"},
				Chain: []envres.Pos{{File: "launch.sh", Line: 3}, {File: "scripts/dispatch.sh", Line: 3}}},
			{Rule: "all-interfaces", Severity: "warning", Pos: envres.Pos{File: "naïve, dir/run:é.sh", Line: 2, Column: 12}, Message: "binds all"},
		},
		Files: []string{"launch.sh", "scripts/dispatch.sh", "naïve, dir/run:é.sh"},
		Sources: map[string][]byte{
			"scripts/dispatch.sh": []byte("#!/bin/bash\ncd x\nset -a; . ./.env; set +a\n"),
			"naïve, dir/run:é.sh": []byte("#!/bin/bash\n# é😀 x=0.0.0.0\n"),
		},
	}
}

func TestJSONShape(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "json", &envres.Result{}, Options{}); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"findings": []any{}, "files": []any{}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("empty result (-want +got):\n%s", d)
	}
	b.Reset()
	if err := Write(&b, "json", sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Findings []envres.Finding `json:"findings"`
		Files    []string         `json:"files"`
	}
	if err := json.Unmarshal(b.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	s := sample()
	// Every key is present: empty variables and a chain of the finding itself.
	s.Findings[1].Variables = []string{}
	s.Findings[1].Chain = []envres.Pos{{File: s.Findings[1].File, Line: 2}}
	if d := cmp.Diff(s.Findings, res.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if strings.Contains(b.String(), "Sources") || strings.Contains(b.String(), "#!/bin/bash") {
		t.Errorf("sources leaked into JSON: %s", b.String())
	}
}

func TestUTF16Column(t *testing.T) {
	line := "# é😀 x=0.0.0.0"
	for _, tc := range []struct{ byteCol, want int }{
		{1, 1}, {3, 3}, {5, 4}, {9, 6}, {10, 7}, {100, 15 + 1 + (99 - 18)},
	} {
		if got := utf16Column(line, tc.byteCol); got != tc.want {
			t.Errorf("utf16Column(byte %d) = %d, want %d", tc.byteCol, got, tc.want)
		}
	}
	if got := (envres.Pos{Column: 10}).CharColumn(line); got != 6 {
		t.Errorf("CharColumn = %d, want 6", got)
	}
}

func TestSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "sarif", sample(), Options{Dir: "/src/proj", ToolVersion: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
						FullDescription  struct{ Text string }
						Help             struct{ Text string }
						Default          struct{ Level string } `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Base    map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI  string `json:"uri"`
							Base string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Related []json.RawMessage `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(envres.Rules())+1 {
		t.Errorf("%d rules, want %d (and spec)", len(run.Tool.Driver.Rules), len(envres.Rules())+1)
	}
	for i, r := range run.Tool.Driver.Rules {
		if i < len(envres.Rules()) && r.ID != envres.Rules()[i].Name || r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.Help.Text == "" || r.Default.Level == "" {
			t.Errorf("rule %d incomplete: %+v", i, r)
		}
	}
	if got := run.Base["%SRCROOT%"].URI; got != "file:///src/proj/" {
		t.Errorf("SRCROOT = %q", got)
	}
	if len(run.Results) != 2 {
		t.Fatalf("%d results", len(run.Results))
	}
	r0, r1 := run.Results[0], run.Results[1]
	if r0.RuleID != "env-file-clobber" || run.Tool.Driver.Rules[r0.RuleIndex].ID != r0.RuleID || r0.Level != "error" {
		t.Errorf("result 0: %+v", r0)
	}
	loc := r0.Locations[0].Physical
	if loc.Artifact.URI != "scripts/dispatch.sh" || loc.Artifact.Base != "%SRCROOT%" || loc.Region.StartLine != 3 || loc.Region.StartColumn != 9 {
		t.Errorf("location 0: %+v", loc)
	}
	if len(r0.Related) != 1 {
		t.Errorf("related locations: %d, want 1 (the chain)", len(r0.Related))
	}
	loc = r1.Locations[0].Physical
	if loc.Artifact.URI != "na%C3%AFve%2C%20dir/run:%C3%A9.sh" {
		t.Errorf("uri = %q", loc.Artifact.URI)
	}
	// byte column 12 on "# é😀 x=0.0.0.0" is the first 0: "# " (2) + é (1) + 😀 (2) + " x=" (3) → UTF-16 column 9.
	if loc.Region.StartColumn != 9 {
		t.Errorf("utf-16 column = %d, want 9", loc.Region.StartColumn)
	}
}

func TestGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "github", sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	want := "::error file=scripts/dispatch.sh,line=3,col=9,title=childproof env-file-clobber::clobbered, 100%25 sure:%0Areally [env-file-clobber]\n" +
		"::warning file=naïve%2C dir/run%3Aé.sh,line=2,col=8,title=childproof all-interfaces::binds all [all-interfaces]\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("github (-want +got):\n%s", d)
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "text", sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	want := "scripts/dispatch.sh:3:9: error: clobbered, 100% sure:\nreally [env-file-clobber]\n" +
		"    set -a; . ./.env; set +a\n" +
		"            ^\n" +
		"    via launch.sh:3 → scripts/dispatch.sh:3\n" +
		"naïve, dir/run:é.sh:2:12: warning: binds all [all-interfaces]\n" +
		"    # é😀 x=0.0.0.0\n" +
		"           ^\n" +
		"1 error(s), 1 warning(s)\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("text (-want +got):\n%s", d)
	}
	b.Reset()
	if err := Write(&b, "text", sample(), Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[1;31merror:\x1b[0m") {
		t.Errorf("no colour: %q", b.String())
	}
	if err := Write(&b, "yaml", sample(), Options{}); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 1000) + "X" + strings.Repeat("b", 20_000)
	got, col := Clip(long, 1001)
	if len([]rune(got)) > MaxSnippet+40 {
		t.Errorf("clipped line has %d runes", len([]rune(got)))
	}
	if r := []rune(got); r[col-1] != 'X' {
		t.Errorf("col %d points at %q, want X", col, r[col-1])
	}
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "… [line cut: 21001 bytes]") {
		t.Errorf("markers missing: %q…%q", got[:10], got[len(got)-30:])
	}
	if got, col := Clip("short", 3); got != "short" || col != 3 {
		t.Errorf("short line changed: %q %d", got, col)
	}
}
