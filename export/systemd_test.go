package export

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/schema"
)

func asUnsupported(err error, target **UnsupportedError) bool { return errors.As(err, target) }

// systemdVerify runs systemd-analyze verify on unit; it skips the test
// when systemd-analyze is not installed (Debian's systemd package; .ci/run
// installs it).
func systemdVerify(t *testing.T, name, unit string) {
	t.Helper()
	systemdVerifyUnits(t, map[string]string{name: unit}, nil)
}

// systemdVerifyUnits verifies units (name → unit text) together, so that
// one may require another. systemd-analyze's complaint that one of the
// programs in missing does not exist (yet) is accepted: the examples run
// bin/mock-llm, which make build builds.
func systemdVerifyUnits(t *testing.T, units map[string]string, missing []string) {
	t.Helper()
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not found (apt-get install systemd): the unit is not verified")
	}
	dir := t.TempDir()
	args := []string{"verify"}
	for name, unit := range units {
		path := filepath.Join(dir, name+".service")
		if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	cmd := exec.Command(sa, args...)
	cmd.Env = append(os.Environ(), "SYSTEMD_LOG_LEVEL=notice")
	out, err := cmd.CombinedOutput()
	var rest []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		tolerated := false
		for _, m := range missing {
			tolerated = tolerated || strings.HasSuffix(line, "Command "+m+" is not executable: No such file or directory")
		}
		if line != "" && !tolerated {
			rest = append(rest, line)
		}
	}
	// Unknown keys and bad values are only logged, so any output fails.
	if len(rest) > 0 || err != nil && len(missing) == 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s\nunits:\n%v", err, out, units)
	}
}

func TestSystemdStory(t *testing.T) {
	dir := storyTree(t)
	l := load(t, dir, "mock-llm")
	unit := render(t, l, Options{Engine: Systemd, Childproof: "/bin/true"})
	for _, want := range []string{
		"ExecStart=" + dir + `/bin/mock-llm --addr 127.0.0.1:18081 --greeting "100%% \"ok\" $$HOME; it\'s"`,
		"WorkingDirectory=" + dir + "\n",
		"EnvironmentFile=" + dir + "/.env\nEnvironmentFile=/etc/childproof/mock-llm.env\n",
		`Environment="LOG_LEVEL=debug"`,
		"PassEnvironment=PATH LANG\n",
		"# inherit HOME: not passed; the service manager has none",
		"TimeoutStopSec=10s\n",
		"# After StartLimitBurst= starts the unit stays failed: systemctl reset-failed mock-llm before starting it again.\n",
		"ExecStartPost=/bin/true verify --state-dir %S/childproof --pid $MAINPID --env HF_HUB_ENABLE_HF_TRANSFER=0 --env LOG_LEVEL=debug --env MOCK_LLM_KEY --env TOKEN --port 18081 --comm mock-llm --wait 5s\n",
		"#   HF_HUB_ENABLE_HF_TRANSFER=0\n#   MOCK_LLM_KEY=<secret>\n#   TOKEN=<secret>\n",
		"KillMode=control-group\n",
		"Restart=on-failure\nRestartSec=2s\n",
		"StartLimitBurst=4\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	// The override the env file also sets is not an Environment= line:
	// the env file would win over it.
	if strings.Contains(unit, "Environment=\"HF_HUB") || strings.Contains(unit, "written-in-the-spec") {
		t.Errorf("unit:\n%s", unit)
	}
	systemdVerify(t, l.Name, unit)
}

func TestSystemdDispatchAndDir(t *testing.T) {
	dir := storyTree(t)
	l := load(t, dir, "dispatched")
	unit := render(t, l, Options{Engine: Systemd, Childproof: "/bin/true"})
	for _, want := range []string{
		"ExecStart=/bin/bash --noprofile --norc " + dir + "/run.sh --arm 2\n",
		"UnsetEnvironment=BASH_ENV ENV\n",
		"Restart=no\n",
		`Environment="MODE=fast"`,
		"ExecStartPost=/bin/true verify --state-dir %S/childproof --pid $MAINPID --env MODE=fast --wait 10s\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	if strings.Contains(unit, "/etc/childproof/") {
		t.Errorf("a launch without secrets needs no secret env file:\n%s", unit)
	}
	systemdVerify(t, l.Name, unit)

	// --dir rebases the spec's directory.
	unit = render(t, l, Options{Engine: Systemd, Dir: "/opt/app"})
	for _, want := range []string{"WorkingDirectory=/opt/app\n", "/bin/bash --noprofile --norc /opt/app/run.sh --arm 2\n", "ExecStartPost=childproof verify --state-dir %S/childproof --pid $MAINPID"} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
}

// TestSystemdExamples exports every launch of the shipped examples and
// verifies each unit.
func TestSystemdExamples(t *testing.T) {
	specs, err := filepath.Glob("../examples/*/*.hcl")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example specs: %v", err)
	}
	verified := 0
	for _, spec := range specs {
		f, _, diags := schema.Load(spec, schema.LoadOptions{LookupEnv: LookupEnv, MissingProgramOK: true})
		if diags.HasErrors() {
			continue // an example of a bad spec
		}
		// A file's launches together: one may require another (depends_on).
		t.Run(filepath.Base(filepath.Dir(spec))+"/"+filepath.Base(spec), func(t *testing.T) {
			units := map[string]string{}
			var missing []string
			for _, l := range f.Launches {
				units[l.Name] = render(t, l, Options{Engine: Systemd, Childproof: "/bin/true"})
				if len(l.Command) > 0 {
					if prog := l.Command[0]; strings.Contains(prog, "/") {
						if !filepath.IsAbs(prog) {
							prog = filepath.Join(l.Dir, prog)
						}
						if _, err := os.Stat(prog); err != nil {
							missing = append(missing, prog)
						}
					}
				}
			}
			systemdVerifyUnits(t, units, missing)
			verified += len(units)
		})
	}
	if verified < 5 {
		t.Errorf("only %d example launches verified", verified)
	}
}

func TestSystemdDependsOn(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"spec.hcl": `launch "db" {
  command = ["/bin/sleep", "100"]
}
launch "api" {
  command    = ["/bin/sleep", "100"]
  depends_on = ["db"]
}`})
	unit := render(t, load(t, dir, "api"), Options{Engine: Systemd, Childproof: "/bin/true"})
	if !strings.Contains(unit, "Requires=db.service\nAfter=network.target db.service\n") || !strings.Contains(unit, "# depends_on: export db too") {
		t.Errorf("unit:\n%s", unit)
	}
	db := render(t, load(t, dir, "db"), Options{Engine: Systemd, Childproof: "/bin/true"})
	systemdVerifyUnits(t, map[string]string{"api": unit, "db": db}, nil)
}

// An inherit pattern is not refused: the unit says what it does instead
// (the manager has no such variables; the optional env file may set them).
func TestSystemdInheritPattern(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"spec.hcl": `launch "a" {
  command = ["sleep", "1"]
  inherit = ["PATH", "CUDA_*"]
}`})
	unit := render(t, load(t, dir, "a"), Options{Engine: Systemd, Childproof: "/bin/true"})
	for _, want := range []string{"PassEnvironment=PATH\n", "EnvironmentFile=-/etc/childproof/a.env\n", `# inherit "CUDA_*": PassEnvironment= takes names`} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	systemdVerify(t, "a", unit)
}

func TestQuoteSystemd(t *testing.T) {
	for _, c := range []struct {
		in   string
		cmd  bool
		want string
	}{
		{"plain", true, "plain"},
		{"", true, `""`},
		{"a b", true, `"a b"`},
		{"$X", true, "$$X"},
		{"$X", false, `"$X"`},
		{"50%", true, "50%%"},
		{`back\slash`, true, `back\\slash`},
		{"line\nbreak", true, `"line\nbreak"`},
		{";", true, `\;`},
		{"a;b", true, "a;b"},
		{"K=v w", false, `"K=v w"`},
		{"\x01", true, `"\x01"`},
	} {
		if got := quoteSystemd(c.in, c.cmd); got != c.want {
			t.Errorf("quoteSystemd(%q, %v) = %s, want %s", c.in, c.cmd, got, c.want)
		}
	}
}
