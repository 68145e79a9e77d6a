package testsupport

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/envres"
)

// entry is one script of the manifest.
type entry struct{ repo, commit, path string }

// precisionDir holds the precision corpus's manifest, labels and fetch.sh.
const precisionDir = "testdata/precision/"

// file is the entry's path in the cache (and in findings).
func (e entry) file() string { return strings.ReplaceAll(e.repo, "/", "+") + "/" + e.path }

func readTSV(t *testing.T, name string, cols int) [][]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		row := strings.Split(l, "\t")
		if len(row) < cols {
			t.Fatalf("%s: %q has %d fields, want %d", name, l, len(row), cols)
		}
		out = append(out, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// corpusDir returns the cache holding the corpus, re-reading it with
// fetch.sh when files are missing; it skips the test when it cannot.
func corpusDir(t *testing.T, es []entry) string {
	t.Helper()
	return corpusCache(t, es, "CHILDPROOF_PRECISION_CORPUS", "precision-corpus", precisionDir+"manifest.tsv")
}

// corpusCache returns the cache of a corpus ($env, default
// $XDG_CACHE_HOME/childproof/name), re-reading it with fetch.sh from
// manifest when files are missing; it skips the test when it cannot.
func corpusCache(t *testing.T, es []entry, env, name, manifest string) string {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("%s: no cache directory (%v); set %s", name, err, env)
		}
		dir = filepath.Join(c, "childproof", name)
	}
	complete := func() bool {
		for _, e := range es {
			if fi, err := os.Stat(filepath.Join(dir, e.file())); err != nil || fi.Size() == 0 {
				return false
			}
		}
		return true
	}
	if complete() {
		return dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", precisionDir+"fetch.sh", dir, manifest).CombinedOutput()
	if err != nil || !complete() {
		t.Skipf("%s cannot be re-read into %s (CI has no internet; set CHILDPROOF_CORPUS_MIRROR to local git mirrors): %v %s",
			name, dir, err, strings.TrimSpace(string(out)))
	}
	return dir
}

// passes are the lint configurations the corpus is run with: a reviewer's
// plain "childproof lint ." (no protected names), and one with names ML
// launchers and services protect.
var passes = []struct {
	name      string
	overrides []envres.Override
	require   []string
}{
	{"plain", nil, nil},
	{"protected", []envres.Override{
		{Name: "CUDA_VISIBLE_DEVICES", Value: "0", Known: true},
		{Name: "HOME", Value: "/home/app", Known: true},
		{Name: "PYTHONPATH", Value: "/app", Known: true},
		{Name: "NCCL_DEBUG", Value: "WARN", Known: true},
		{Name: "MASTER_PORT", Value: "29500", Known: true},
	}, []string{"PATH"}},
}

// TestPrecision lints the corpus and compares its findings, errors and
// warnings, with the hand labels: a finding labelled wrong that comes back
// fails, and so does error precision under 95% or a warning rule's under
// 80%; a finding not labelled yet is listed, to be labelled. Findings in
// files outside the corpus (the test machine's own /root/.bashrc, which a
// script sources by its absolute path) depend on that machine and are not
// counted.
func TestPrecision(t *testing.T) {
	if testing.Short() {
		t.Skip("precision corpus: skipped in -short mode")
	}
	var es []entry
	for _, r := range readTSV(t, precisionDir+"manifest.tsv", 3) {
		es = append(es, entry{r[0], r[1], r[2]})
	}
	if len(es) < 500 {
		t.Errorf("the corpus has %d scripts, want at least 500", len(es))
	}
	labels := map[string]string{} // pass rule file:line:col -> verdict
	for _, r := range readTSV(t, precisionDir+"labels.tsv", 6) {
		if r[5] != "right" && r[5] != "wrong" {
			t.Fatalf("labels.tsv: verdict %q, want right or wrong", r[5])
		}
		labels[strings.Join(r[:2], " ")+" "+r[2]+":"+r[3]+":"+r[4]] = r[5]
	}
	dir := corpusDir(t, es)
	scripts := make([]string, len(es))
	for i, e := range es {
		scripts[i] = e.file()
	}
	seen := map[string]bool{}
	for _, p := range passes {
		res, err := envres.Lint(context.Background(), envres.Config{Dir: dir, Scripts: scripts, ArgsUnknown: true,
			KeepGoing: true, Overrides: p.overrides, Require: p.require})
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		type tally struct{ right, wrong, unlabelled int }
		errs := tally{}
		warns := map[string]*tally{}
		for _, f := range res.Findings {
			if filepath.IsAbs(f.File) {
				t.Logf("%s: not counted (a file of this machine, outside the corpus): %s: %s [%s]", p.name, f.Pos, f.Message, f.Rule)
				continue
			}
			c := &errs
			if f.Severity != envres.SeverityError {
				if warns[f.Rule] == nil {
					warns[f.Rule] = &tally{}
				}
				c = warns[f.Rule]
			}
			key := fmt.Sprintf("%s %s %s:%d:%d", p.name, f.Rule, f.File, f.Line, f.Column)
			seen[key] = true
			switch labels[key] {
			case "right":
				c.right++
			case "wrong":
				c.wrong++
				if f.Severity == envres.SeverityError {
					t.Errorf("%s: a finding labelled wrong is back: %s: %s [%s]", p.name, f.Pos, f.Message, f.Rule)
				}
			default:
				c.unlabelled++
				t.Logf("%s: not labelled yet (add it to labels.tsv): %s\t%s\t%s\t%d\t%d\t?", p.name, p.name, f.Rule, f.File, f.Line, f.Column)
			}
		}
		if n := errs.right + errs.wrong; n > 0 && float64(errs.right)/float64(n) < 0.95 {
			t.Errorf("%s: error precision %d/%d, under 95%%", p.name, errs.right, n)
		}
		t.Logf("%s: %d scripts, %d files read, error findings: %d right, %d wrong, %d not labelled", p.name, len(scripts), len(res.Files), errs.right, errs.wrong, errs.unlabelled)
		for _, r := range envres.Rules() {
			w := warns[r.Name]
			if w == nil {
				continue
			}
			n := w.right + w.wrong
			if n > 0 && float64(w.right)/float64(n) < 0.80 {
				t.Errorf("%s: warning rule %s: precision %d/%d, under 80%%", p.name, r.Name, w.right, n)
			}
			t.Logf("%s: warning %s: %d right, %d wrong, %d not labelled", p.name, r.Name, w.right, w.wrong, w.unlabelled)
		}
	}
	for k, v := range labels {
		if v == "right" && !seen[k] {
			t.Logf("a finding labelled right is gone (a lost true positive?): %s", k)
		}
	}
}
