package envres

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// envFileVariants are env files whose meaning differs between bash and
// the dotenv parsers: CRLF, a byte-order mark, trailing comments, export
// prefixes, quotes.
var envFileVariants = map[string]string{
	"crlf_same.env":  "X=ovr\r\nY=1\r\n",
	"crlf_other.env": "X=other\r\nY=1\r\n",
	"bom_x.env":      "\xef\xbb\xbfX=other\nY=1\n",
	"bom_y.env":      "\xef\xbb\xbfY=1\nX=ovr\n",
	"comment.env":    "X=ovr # the value\nY=1\n",
	"export.env":     "export X=other\nexport Y=1\n",
	"quoted.env":     "X=\"ovr\"\nY='1'\n",
	"plain.env":      "# a comment\nX=other\n\nY=1\n",
}

// envFileLoaders load F (a placeholder) the ways scripts do.
var envFileLoaders = []string{
	"set -a; . ./F; set +a",
	". ./F",
	"export $(grep -v '^#' F | xargs)",
	"while read -r l; do [[ $l == '#'* || -z $l ]] && continue; export \"$l\"; done < F",
	"while IFS='=' read -r k v; do [[ $k == '#'* || -z $k ]] && continue; export \"$k=$v\"; done < F",
	"while IFS= read -r l; do [[ $l == '#'* || -z $l ]] && continue; export \"$l\"; done < <(sed 's/\\r$//' F)",
	"eval \"$(cat F)\"",
	"set -a; source <(cat F); set +a",
	"set -a; source <(sed 's/\\r$//' F); set +a",
	"for kv in $(grep -v '^#' F); do export \"$kv\"; done",
	"export $(grep -v '^#' F)",
	"export $(grep -v '^#' F | xargs -d '\\n')",
	"L=($(grep -v '^#' F)); for l in \"${L[@]}\"; do export \"$l\"; done",
	"mapfile -t L < F; for l in \"${L[@]}\"; do [[ $l == '#'* || -z $l ]] && continue; export \"$l\"; done",
}

// TestDifferentialEnvFile runs every loader over every variant under real
// bash (X=ovr exported by the caller, the worker replaced by printenv) and
// checks that the lint reports a clobber of X exactly when bash's worker
// does not get X=ovr, and names Y in an env-file-load exactly when the
// worker gets Y.
func TestDifferentialEnvFile(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	for n, b := range envFileVariants {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := make([]string, 0, len(envFileVariants))
	for n := range envFileVariants {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, loader := range envFileLoaders {
		for _, n := range names {
			script := "#!/bin/bash\n" + strings.ReplaceAll(loader, "F", n) + "\nexec printenv\n"
			if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bash, "--noprofile", "--norc", "run.sh")
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "X=ovr"}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, script)
			}
			if len(out) == 0 {
				continue
			}
			gotX, gotY := "", false
			for _, l := range bytes.Split(out, []byte("\n")) {
				if v, ok := bytes.CutPrefix(l, []byte("X=")); ok {
					gotX = string(v)
				}
				gotY = gotY || bytes.HasPrefix(l, []byte("Y="))
			}
			// A CR at a line end shows up as the next line's first byte.
			if i := bytes.Index(out, []byte("X=")); i >= 0 {
				if j := bytes.IndexByte(out[i:], '\n'); j > 0 && out[i+j-1] == '\r' {
					gotX = strings.TrimSuffix(gotX, "\r") + "\r"
				}
			}
			res, err := Lint(context.Background(), Config{Dir: dir, Scripts: []string{"run.sh"},
				Overrides: []Override{{Name: "X", Value: "ovr", Known: true}}})
			if err != nil {
				t.Fatal(err)
			}
			clobber, loadY := false, false
			for _, f := range res.Findings {
				clobber = clobber || f.Rule == EnvFileClobber.Name
				if f.Rule == EnvFileLoad.Name {
					for _, v := range f.Variables {
						loadY = loadY || v == "Y"
					}
				}
			}
			want := struct{ Clobber, Y bool }{gotX != "ovr", gotY}
			got := struct{ Clobber, Y bool }{clobber, loadY}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s over %s (bash: X=%q): lint differs from bash (-bash +lint):\n%s", loader, n, gotX, diff)
			}
		}
	}
}

// TestDifferentialEnvLoaders runs the env-loading wrappers that are
// installed (python-dotenv's dotenv run, node --env-file) over every
// variant, with X=ovr from the caller: the lint reports a clobber exactly
// when the worker's X is not ovr.
func TestDifferentialEnvLoaders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts python and node for each case")
	}
	dir := t.TempDir()
	for n, b := range envFileVariants {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	nodeX := `'process.stdout.write("X=" + process.env.X + "\n")'`
	loaders := []struct{ tool, line string }{
		{"dotenv", "exec dotenv -f F run printenv"},
		{"dotenv", "exec dotenv -f F run --no-override printenv"},
		{"node", "exec node --env-file=F -e " + nodeX},
	}
	ran := 0
	for _, l := range loaders {
		path, err := exec.LookPath(l.tool)
		if err != nil {
			continue
		}
		// The cases' PATH: the program's own directory first when it is a
		// pyenv shim (see shimTarget).
		casePath := os.Getenv("PATH")
		if real := shimTarget(path, dir); real != "" {
			path, casePath = real, filepath.Dir(real)+string(filepath.ListSeparator)+casePath
		}
		if l.tool == "dotenv" && exec.Command(path, "--help").Run() != nil {
			continue // not python-dotenv's CLI
		}
		ran++
		for n := range envFileVariants {
			script := "#!/bin/bash\n" + strings.ReplaceAll(l.line, "F", n) + "\n"
			if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "--noprofile", "--norc", "run.sh")
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + casePath, "HOME=" + dir, "X=ovr"}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v", script, err)
			}
			gotX := ""
			for _, line := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(line, "X="); ok {
					gotX = v
				}
			}
			res, err := Lint(context.Background(), Config{Dir: dir, Scripts: []string{"run.sh"},
				Overrides: []Override{{Name: "X", Value: "ovr", Known: true}}})
			if err != nil {
				t.Fatal(err)
			}
			clobber := false
			for _, f := range res.Findings {
				clobber = clobber || f.Rule == EnvFileClobber.Name
			}
			if clobber != (gotX != "ovr") {
				t.Errorf("%s over %s: the worker gets X=%q; lint reports a clobber: %v", l.line, n, gotX, clobber)
			}
		}
	}
	if ran == 0 {
		t.Skip("neither python-dotenv's dotenv nor node is installed")
	}
}

// shimTarget returns the program a pyenv shim at path runs when started in
// dir ("" when path is no pyenv shim or pyenv cannot say). A shim looks
// its program up anew at every start (bash, pyenv exec, the version files,
// the hooks: about 0.6 CPU-s, several times python-dotenv's own start) and
// runs it with its directory first on PATH; the cases run that program
// with that PATH directly, once it is known.
func shimTarget(path, dir string) string {
	if filepath.Base(filepath.Dir(path)) != "shims" {
		return ""
	}
	cmd := exec.Command("pyenv", "which", filepath.Base(path))
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
