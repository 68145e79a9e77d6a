package envres

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlan(t *testing.T) {
	lit := func(s string) Word { return Word{Parts: []Part{{Lit: s}}} }
	tests := []struct {
		name   string
		script string
		args   []string
		files  map[string]string
		// want: the chosen start's argv and environment
		how     How
		argv    []Word
		env     []EnvSetting
		files2  []string // env files, relative to the test dir
		inherit []string
	}{
		{
			name:   "exec through a login shell",
			script: "cd \"$(dirname \"$0\")\"\nexec bash -lic 'exec ./srv --port 80'\n",
			how:    HowExec, argv: []Word{lit("./srv"), lit("--port"), lit("80")},
		},
		{
			name:   "defaults, required names and the script's arguments",
			script: "PORT=${PORT:-8080}\n: \"${HOST:=127.0.0.1}\"\nexport KEY=\"${KEY:?no key}\"\nexec ./srv --addr \"$HOST:$PORT\" \"$@\"\n",
			args:   []string{"--arm", "2"},
			how:    HowExec,
			argv: []Word{lit("./srv"), lit("--addr"),
				{Parts: []Part{{Env: "HOST", Default: "127.0.0.1", HasDefault: true}, {Lit: ":"}, {Env: "PORT", Default: "8080", HasDefault: true}}},
				lit("--arm"), lit("2")},
			env: []EnvSetting{{Name: "KEY", Value: Word{Parts: []Part{{Env: "KEY", Required: true}}}, Pos: Pos{File: "run.sh", Line: 3}}},
		},
		{
			name:   "an export clobbered by a later env file load",
			script: "export MODE=0\nexport -n X\nexport LANG_X\nset -a\n. ./.env\nset +a\nnohup ./srv &\n",
			files:  map[string]string{".env": "MODE=1\nOTHER=2\n"},
			how:    HowBackground, argv: []Word{lit("./srv")},
			env:     []EnvSetting{{Name: "MODE", Value: lit("0"), Pos: Pos{File: "run.sh", Line: 1}, Clobbered: true}},
			files2:  []string{".env"},
			inherit: []string{"LANG_X"},
		},
		{
			name:   "a value the analysis cannot know",
			script: "export T=$(date +%s)\nexec ./srv\n",
			how:    HowExec, argv: []Word{lit("./srv")},
			env: []EnvSetting{{Name: "T", Value: Word{}, Pos: Pos{File: "run.sh", Line: 1}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/bash\n"+tt.script), 0o755)
			for n, s := range tt.files {
				os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644)
			}
			p, err := Plan(context.Background(), Config{Dir: dir, Scripts: []string{"run.sh"}, Args: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Starts) == 0 {
				t.Fatal("no start")
			}
			s := p.Starts[len(p.Starts)-1]
			if s.How != tt.how {
				t.Errorf("how = %s, want %s", s.How, tt.how)
			}
			noText := cmp.Transformer("noText", func(w Word) Word { w.Text = ""; return w })
			if d := cmp.Diff(tt.argv, s.Argv, noText); d != "" {
				t.Errorf("argv (-want +got):\n%s", d)
			}
			for i := range tt.env {
				tt.env[i].Line++ // the shebang
			}
			if d := cmp.Diff(tt.env, s.Env, noText); d != "" {
				t.Errorf("env (-want +got):\n%s", d)
			}
			var files []string
			for _, f := range s.EnvFiles {
				r, _ := filepath.Rel(dir, f)
				files = append(files, r)
			}
			if d := cmp.Diff(tt.files2, files); d != "" {
				t.Errorf("env files (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.inherit, s.Inherit); d != "" {
				t.Errorf("inherit (-want +got):\n%s", d)
			}
		})
	}
}

func TestPlanConstructs(t *testing.T) {
	dir := t.TempDir()
	script := `#!/bin/bash
pkill -f srv
if [ -f srv.pid ]; then kill "$(cat srv.pid)"; fi
if [ -n "$DEBUG" ]; then export LOG=debug; elif [ -n "$Q" ]; then export LOG=quiet; fi
./srv --port 80 &
until curl -fs http://127.0.0.1:80/health; do sleep 1; done
wait
`
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755)
	p, err := Plan(context.Background(), Config{Dir: dir, Scripts: []string{"run.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	type c struct {
		Kind    ConstructKind
		Line    int
		URL     string
		Affects bool
	}
	var got []c
	for _, x := range p.Constructs {
		got = append(got, c{x.Kind, x.Line, x.URL, x.Affects})
	}
	want := []c{
		{KillCleanup, 2, "", false},
		{KillCleanup, 3, "", false},
		{Conditional, 4, "", true},
		{ReadinessLoop, 6, "http://127.0.0.1:80/health", false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("constructs (-want +got):\n%s", d)
	}
}
