package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/childproof/childproof/lintreport"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// canaryCase is one secret source in one position, with its own canary.
type canaryCase struct {
	source, position string
	value            string
}

// canaryMatrix is the generated part of the canary test: every secret
// source × every position it can take. A source that only reaches the
// worker's environment (an env file, the secret list, --set-secret, --set
// of a secret-list name) takes the positions the worker's own output gives
// it: the env value (printed whole), inside a word, a URL, a path and a
// query, and across the 64 KiB read boundary of a long line (the test
// server's CHILDPROOF_TEST_ECHO prints each CNY_* value so).
func canaryMatrix(t *testing.T) []canaryCase {
	var out []canaryCase
	add := func(source string, positions ...string) {
		for _, p := range positions {
			b := make([]byte, 4)
			rand.Read(b)
			out = append(out, canaryCase{source: source, position: p,
				value: "cny" + strings.NewReplacer("()", "", "-", "", " ", "", "_", "").Replace(source+p) + hex.EncodeToString(b)})
		}
	}
	worker := []string{"env-value"} // echoed by the worker in every printed form
	add("env()", append([]string{"argv-whole", "argv-inside", "argv-url"}, worker...)...)
	add("file()", append([]string{"argv-whole", "argv-inside", "argv-url"}, worker...)...)
	add("env_file", worker...)
	add("secret-list", worker...)
	add("--set-secret", worker...)
	add("--set", worker...)
	return out
}

// TestCanaryMatrix extends TestCanary into a generated test: the cases of
// canaryMatrix, put into one launch, run through every command and format,
// by a caller with the secrets and one without; the names test puts env()
// in every name position. No canary may appear in any output, anywhere
// under the state dir, or in a file that import or export writes.
func TestCanaryMatrix(t *testing.T) {
	t.Parallel() // its dirs, state dir and port are its own
	e := newFaultEnv(t)
	cases := canaryMatrix(t)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	callerEnv := []string{}
	var argv, envLines, secretNames, inherit, envFile, setArgs []string
	for i, c := range cases {
		src := fmt.Sprintf("SRC_%d", i)
		cny := fmt.Sprintf("CNY_%d", i)
		switch c.source {
		case "env()":
			callerEnv = append(callerEnv, src+"="+c.value)
			switch c.position {
			case "argv-whole":
				argv = append(argv, fmt.Sprintf("env(%q)", src))
			case "argv-inside":
				argv = append(argv, fmt.Sprintf(`"pre.${env(%q)}.post"`, src))
			case "argv-url":
				argv = append(argv, fmt.Sprintf(`"--db=https://u:${env(%q)}@db.example/x?token=${env(%q)}"`, src, src))
			default:
				envLines = append(envLines, fmt.Sprintf("%s = env(%q)", cny, src))
			}
		case "file()":
			f := fmt.Sprintf("f%d.txt", i)
			write(f, c.value)
			switch c.position {
			case "argv-whole":
				argv = append(argv, fmt.Sprintf("file(%q)", f))
			case "argv-inside":
				argv = append(argv, fmt.Sprintf(`"pre.${file(%q)}.post"`, f))
			case "argv-url":
				argv = append(argv, fmt.Sprintf(`"--db=https://u:${file(%q)}@db.example/x"`, f))
			default:
				envLines = append(envLines, fmt.Sprintf("%s = file(%q)", cny, f))
			}
		case "env_file":
			envFile = append(envFile, cny+"="+c.value)
		case "secret-list":
			secretNames = append(secretNames, cny)
			inherit = append(inherit, cny)
			callerEnv = append(callerEnv, cny+"="+c.value)
		case "--set-secret":
			callerEnv = append(callerEnv, cny+"="+c.value)
			setArgs = append(setArgs, "--set-secret", cny)
		case "--set":
			secretNames = append(secretNames, cny)
			setArgs = append(setArgs, "--set", cny+"="+c.value)
		}
	}
	write(".env", strings.Join(envFile, "\n")+"\nPLAIN=1\n")
	port := freeTCPPort(t)
	q := func(ss []string) string {
		var b []string
		for _, s := range ss {
			b = append(b, fmt.Sprintf("%q", s))
		}
		return strings.Join(b, ", ")
	}
	write("m.hcl", fmt.Sprintf(`launch "m" {
  command  = ["childproof", %s]
  env_file = ".env"
  inherit  = ["PATH", "HOME", %s]
  env = {
    CHILDPROOF_TEST_SERVE    = "127.0.0.1:%d"
    CHILDPROOF_TEST_PRINTENV = "1"
    CHILDPROOF_TEST_ECHO     = "1"
    GORACE                   = "atexit_sleep_ms=0"
    %s
  }
  secret = [%s]
  worker {
    comm = "childproof"
  }
  port "http" {
    number = %d
  }
  ready {
    timeout = "20s"
  }
}
`, strings.Join(argv, ", "), q(inherit), port, strings.Join(envLines, "\n    "), q(secretNames), port))
	// Name positions: env() where a name is expected.
	nameCanary := "cnyname" + cases[0].value
	write("names.hcl", `launch "n" {
  command    = ["true", env(env("NAME_SRC"))]
  inherit    = [env("NAME_SRC")]
  secret     = [env("NAME_SRC")]
  env        = { "${env("NAME_SRC")}" = "v" }
  depends_on = [env("NAME_SRC")]
}
`)
	// import of a script in each loader form.
	write("seta.sh", "#!/bin/bash\nset -a; . ./.env; set +a\nexport OTHER=\"$CNY_X\"\nexec ./srv --key \"$CNY_X\" --url \"https://u:${CNY_X}@h/db\"\n")
	write("xargs.sh", "#!/bin/bash\nexport $(cat .env | xargs)\nexec ./srv --key \"$CNY_X\"\n")
	write("loop.sh", "#!/bin/bash\nwhile read -r l; do export \"$l\"; done < .env\nexec ./srv --key \"${CNY_X:?set it}\"\n")
	importCanary := "cnyimport" + cases[0].value
	write(".env", strings.Join(envFile, "\n")+"\nCNY_X="+importCanary+"\nPLAIN=1\n")
	cases = append(cases, canaryCase{"env_file", "import", importCanary}, canaryCase{"env()", "name", nameCanary})
	callerEnv = append(callerEnv, "NAME_SRC="+nameCanary)

	var outputs, labels []string
	withSecrets := true
	cp := func(args ...string) int {
		t.Helper()
		c := e.command(args...)
		if withSecrets {
			c.Env = append(c.Env, callerEnv...)
		}
		var out strings.Builder
		c.Stdout, c.Stderr = &out, &out
		code := 0
		if err := c.Run(); err != nil {
			code = c.ProcessState.ExitCode()
		}
		who := "with the secrets"
		if !withSecrets {
			who = "without the secrets"
		}
		labels = append(labels, fmt.Sprintf("childproof %s (exit %d, %s)", strings.Join(args, " "), code, who))
		outputs = append(outputs, out.String())
		return code
	}
	formats := lintreport.Formats
	for _, f := range formats {
		cp("check", "--format", f, "m.hcl")
		cp("check", "--format", f, "names.hcl")
	}
	cp("run", "--no-lint", "names.hcl")
	cp("run", "--no-lint", "--format", "json", "names.hcl")
	if code := cp(append([]string{"run", "--no-lint", "--detach"}, append(setArgs, "m.hcl")...)...); code != 0 {
		t.Fatalf("run failed:\n%s", outputs[len(outputs)-1])
	}
	t.Cleanup(func() { e.run("stop", "m") })
	// The log has the worker's long lines once run returns; the check below
	// reads every file of the state dir.
	generated := []string{}
	for _, who := range []bool{true, false} {
		withSecrets = who
		for _, f := range []string{"text", "json"} {
			cp("check", "--format", f, "m.hcl")
			cp("verify", "--format", f, "m.hcl")
			cp("explain", "--format", f, "m.hcl", "CNY_0")
			cp("ps", "--format", f)
			cp("ps", "--all", "--format", f)
			cp("history", "--format", f, "m")
		}
		cp("logs", "m")
		cp("logs", "-n", "5", "m")
		for _, to := range []string{"systemd", "k8s", "slurm", "nomad"} {
			out := filepath.Join(e.dir, fmt.Sprintf("export-%s-%v", to, who))
			generated = append(generated, out)
			cp("export", "--to", to, "--image", "img", "-o", out, "m.hcl")
		}
		for _, s := range []string{"seta.sh", "xargs.sh", "loop.sh"} {
			out := filepath.Join(e.dir, fmt.Sprintf("import-%s-%v.hcl", s, who))
			generated = append(generated, out)
			cp("import", "-o", out, s)
		}
	}
	withSecrets = true
	cp(append([]string{"relaunch", "--no-lint", "--detach", "--format", "json"}, append(setArgs, "m")...)...)
	cp("logs", "m")
	cp("stop", "--format", "json", "m")
	// In the foreground the console gets the worker's output in the pass
	// that writes the log: the same lines, masked (the long lines across
	// the read boundary too).
	fg := e.command(append([]string{"run", "--no-lint"}, append(setArgs, "m.hcl")...)...)
	fg.Env = append(fg.Env, callerEnv...)
	fgOut := &syncBuffer{}
	fg.Stdout, fg.Stderr = fgOut, fgOut
	if err := fg.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fgOut, "verified m:", 60*time.Second)
	fg.Process.Signal(syscall.SIGINT) // the run this test started
	fg.Wait()
	labels = append(labels, "childproof run m.hcl (foreground, with the secrets)")
	outputs = append(outputs, fgOut.String())
	if strings.Contains(fgOut.String(), "NOT verified") {
		t.Errorf("the foreground run did not verify:\n%.2000s", fgOut.String())
	}
	if fgLog, err := os.ReadFile(filepath.Join(e.state, "logs", "m.log")); err != nil {
		t.Errorf("the foreground run's log: %v", err)
	} else if i, ok := inOrder(strings.Split(strings.TrimSuffix(string(fgLog), "\n"), "\n"), strings.Split(fgOut.String(), "\n")); !ok {
		// Say which line and what the console had: a line the console
		// lacks, or one another writer broke (a notice inside it), are
		// different bugs. The output is masked (checked below).
		out, want := fgOut.String(), strings.Split(string(fgLog), "\n")
		from := 0 // the console from the last line found in order
		if i > 0 {
			from = max(0, strings.Index(out, want[i-1]+"\n"))
		}
		t.Errorf("the foreground console lacks line %d of its log (%.200q), or has it out of order; the console (%d bytes) after the line before it: %.3000q", i+1, want[i], len(out), out[from:])
	}

	// The worker's output did reach the log, masked: the test would pass
	// vacuously if it printed nothing.
	log, err := os.ReadFile(filepath.Join(e.state, "logs", "m.log"))
	if err != nil || !strings.Contains(string(log), "url: https://u:<CNY_") || !strings.Contains(string(log), "argv: ") {
		t.Errorf("the worker's log lacks its masked lines (%v): %.300q", err, log)
	}
	for _, c := range cases {
		for i, o := range outputs {
			if strings.Contains(o, c.value) {
				t.Errorf("the %s canary in position %s shows in the output of %s:\n%s", c.source, c.position, labels[i], o)
			}
		}
	}
	var stored []string
	filepath.WalkDir(e.state, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			stored = append(stored, path)
		}
		return nil
	})
	sort.Strings(stored)
	for _, path := range append(stored, generated...) {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // an export that was refused writes nothing
		}
		for _, c := range cases {
			if strings.Contains(string(b), c.value) {
				rel, _ := filepath.Rel(e.dir, path)
				t.Errorf("the %s canary in position %s is in %s", c.source, c.position, rel)
			}
		}
	}
	if testing.Verbose() {
		for i, o := range outputs {
			t.Logf("%s\n%s", labels[i], o)
		}
	}
}

// inOrder reports whether every line of want is among got, in order, and
// the index of the first line of want it did not find.
func inOrder(want, got []string) (int, bool) {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i, i == len(want)
}
