package main

import (
	"fmt"
	"github.com/childproof/childproof/lintreport"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCanary plants a canary secret through every path a secret takes —
// env() in spec attributes and argv, file(), the env file, --set of a
// secret-list name, --set-secret, a worker that prints its environment
// and argv (and one that then exits) — runs every command in every output
// format, and greps what they print, the state dir and the log tails:
// not one canary may show: no secret value appears in any output, record,
// log file, log tail or diagnostic (the worker's output is masked before
// it reaches the log).
func TestCanary(t *testing.T) {
	t.Parallel() // its dirs, state dir and port are its own
	e := newFaultEnv(t)
	canaries := map[string]string{
		"CANARY_ENV":   "canary-env-5e2d91",
		"file()":       "canary-file-8c41aa",
		"env_file":     "canary-envfile-3b17f0",
		"--set":        "canary-set-77d0a1",
		"--set-secret": "canary-setsecret-2f9e0c",
		"bad attr":     "canary-bad-attr 9a7e",
	}
	port := freeTCPPort(t)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("token.txt", canaries["file()"]+"\n")
	write(".env", "FILE_SECRET="+canaries["env_file"]+"\nPLAIN=1\n")
	launch := func(name, extra string) string {
		return fmt.Sprintf(`launch %q {
  command  = ["childproof", "--api-key", env("CANARY_ENV"), "--opt=${env("CANARY_ENV")}", file("token.txt")]
  env_file = ".env"
  inherit  = ["PATH", "HOME"]
  env = {
    CHILDPROOF_TEST_PRINTENV = "1"
    GORACE                   = "atexit_sleep_ms=0"
    MOCK_LLM_KEY             = env("CANARY_ENV")
    FROM_FILE                = file("token.txt")
%s  }
  secret  = ["SET_SECRET"]
  require = ["MOCK_LLM_KEY"]
  worker {
    comm = "childproof"
  }
`, name, extra)
	}
	write("canary.hcl", launch("canary", fmt.Sprintf("    CHILDPROOF_TEST_SERVE = \"127.0.0.1:%d\"\n", port))+
		fmt.Sprintf("  port \"http\" {\n    number = %d\n  }\n  ready {\n    timeout = \"20s\"\n  }\n}\n", port)+
		launch("dies", "    CHILDPROOF_TEST_SERVE = \"127.0.0.1:1\"\n    CHILDPROOF_TEST_DIE = \"3\"\n")+"}\n"+
		strings.Replace(launch("exp", ""), `command  = ["childproof", "--api-key", env("CANARY_ENV"), "--opt=${env("CANARY_ENV")}", file("token.txt")]`, `command  = ["childproof"]`, 1)+"}\n")
	write("bad.hcl", `launch "bad" {
  command         = [env("CANARY_BAD")]
  dir             = env("CANARY_BAD")
  env_file        = env("CANARY_BAD")
  inherit         = [env("CANARY_BAD")]
  require         = [env("CANARY_BAD")]
  forbid_wrappers = [env("CANARY_BAD")]
  on_stale        = env("CANARY_BAD")
  worker {
    exe = env("CANARY_BAD")
  }
  port "p" {
    number  = 1234
    address = env("CANARY_BAD")
  }
  ready {
    http    = env("CANARY_BAD")
    timeout = env("CANARY_BAD")
  }
}
alias "A" {
  use = env("CANARY_BAD")
}
`)
	env := []string{"CANARY_ENV=" + canaries["CANARY_ENV"], "CANARY_BAD=" + canaries["bad attr"], "SETSEC=" + canaries["--set-secret"]}
	var outputs, labels []string
	cp := func(args ...string) int {
		t.Helper()
		c := e.command(args...)
		c.Env = append(c.Env, env...)
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		code := 0
		if err != nil {
			code = c.ProcessState.ExitCode()
		}
		// The command line itself is the test's, not childproof's output.
		labels = append(labels, fmt.Sprintf("childproof %s (exit %d)", strings.Join(args[:min(len(args), 4)], " "), code))
		outputs = append(outputs, out.String()+errb.String())
		return code
	}
	for _, f := range lintreport.Formats {
		cp("check", "--format", f, "canary.hcl")
		cp("check", "--format", f, "bad.hcl")
	}
	cp("run", "--no-lint", "bad.hcl")
	cp("run", "--no-lint", "--format", "json", "bad.hcl")
	cp("run", "--no-lint", "canary.hcl:dies")
	cp("run", "--no-lint", "--format", "json", "canary.hcl:dies")
	if code := cp("run", "--no-lint", "--detach", "--set", "SET_SECRET="+canaries["--set"], "--set-secret", "SETSEC", "canary.hcl:canary"); code != 0 {
		t.Fatalf("run failed:\n%s", outputs[len(outputs)-1])
	}
	t.Cleanup(func() { e.run("stop", "canary") })
	for _, f := range []string{"text", "json"} {
		cp("verify", "--format", f, "canary.hcl:canary")
		cp("explain", "--format", f, "canary.hcl:canary", "MOCK_LLM_KEY", "SET_SECRET", "FILE_SECRET")
		cp("ps", "--format", f)
		cp("ps", "--all", "--format", f)
		cp("history", "--format", f, "canary")
	}
	cp("logs", "canary")
	cp("logs", "-n", "100", "dies")
	for _, to := range []string{"systemd", "k8s", "slurm", "nomad"} {
		cp("export", "--to", to, "canary.hcl:canary")
		cp("export", "--to", to, "canary.hcl:exp")
	}
	cp("relaunch", "--no-lint", "--detach", "--set", "SET_SECRET="+canaries["--set"]+"-2", "canary")
	cp("relaunch", "--no-lint", "--detach", "--format", "json", "--set-secret", "SETSEC", "--set", "SET_SECRET="+canaries["--set"]+"-3", "canary")
	cp("history", "canary")
	// Without the secrets in the caller's environment (a second terminal).
	saved := env
	env = nil
	cp("check", "canary.hcl")
	cp("verify", "canary.hcl:canary")
	cp("verify", "--format", "json", "canary.hcl:canary")
	cp("explain", "canary.hcl:canary", "MOCK_LLM_KEY")
	cp("logs", "canary")
	env = saved
	cp("stop", "--format", "json", "canary")
	cp("ps", "--all")

	all := strings.Join(outputs, "\n")
	for what, v := range canaries {
		v = strings.Fields(v)[0]
		if strings.Contains(all, v) {
			for i, o := range outputs {
				if strings.Contains(o, v) {
					t.Errorf("the %s canary shows in the output of %s:\n%s", what, labels[i], o)
				}
			}
		}
	}
	filepath.WalkDir(e.state, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		// Logs too (logs/, each round's in history/): masked at the source.
		rel, _ := filepath.Rel(e.state, path)
		b, _ := os.ReadFile(path)
		for what, v := range canaries {
			if strings.Contains(string(b), strings.Fields(v)[0]) {
				t.Errorf("the %s canary is stored in %s", what, rel)
			}
		}
		return nil
	})
	if testing.Verbose() {
		for i, o := range outputs {
			t.Logf("%s\n%s", labels[i], o)
		}
	}
}
