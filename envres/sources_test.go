package envres

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClobberSources: an env-file-clobber finding names the env file each
// variable's value comes from (what relaunch --in-env-file edits), marks
// a load a later one overwrites, and a file the chain writes itself.
func TestClobberSources(t *testing.T) {
	x := []Override{{Name: "X", Value: "0", Known: true}}
	tests := []struct {
		name  string
		files map[string]string
		want  []EnvSource // File relative to the test's dir
	}{
		{"set -a source", map[string]string{"run.sh": "set -a\n. ./.env\nset +a\nexec srv\n", ".env": "X=1\n"},
			[]EnvSource{{Variable: "X", File: ".env"}}},
		{"export cat", map[string]string{"run.sh": "export $(grep -v '^#' conf/app.env | xargs)\nexec srv\n", "conf/app.env": "X=1\n"},
			[]EnvSource{{Variable: "X", File: "conf/app.env"}}},
		{"two loads, the last wins", map[string]string{"run.sh": "set -a\n. ./a.env\n. ./b.env\nset +a\nexec srv\n", "a.env": "X=1\n", "b.env": "X=2\n"},
			[]EnvSource{{Variable: "X", File: "a.env", Overwritten: true}, {Variable: "X", File: "b.env"}}},
		{"generated", map[string]string{"run.sh": "gen > gen.env\nset -a\n. ./gen.env\nset +a\nexec srv\n", "gen.env": "X=1\n"},
			[]EnvSource{{Variable: "X", File: "gen.env", Generated: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := lintFiles(t, tt.files, Config{Overrides: x})
			if err != nil {
				t.Fatal(err)
			}
			var got []EnvSource
			var dir string
			for _, f := range res.Findings {
				if f.Rule != EnvFileClobber.Name {
					continue
				}
				for _, s := range f.Sources {
					if dir == "" {
						for name := range tt.files {
							if strings.HasSuffix(s.File, "/"+name) {
								dir = strings.TrimSuffix(s.File, "/"+name)
							}
						}
					}
					rel, _ := filepath.Rel(dir, s.File)
					s.File = rel
					got = append(got, s)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("sources (-want +got):\n%s\n%v", d, reduce(res))
			}
		})
	}
}
