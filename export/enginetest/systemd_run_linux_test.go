package enginetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/launcher/launchertest"
)

const systemdCanary = "canary-systemd-KEY-9b2f47"

// TestSystemd starts exported units under a real systemd (booted once for
// every case) and judges each by systemctl show (ActiveState, Result) and
// the unit's journal.
func TestSystemd(t *testing.T) {
	t.Parallel() // beside TestPsOverSSH only (see doc.go)
	proj := t.TempDir()
	if err := os.Chmod(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	ex := copyExample03Dir(t)
	s := startSystemd(t, filepath.Dir(bin), proj, ex.root)

	t.Run("env file dialect", func(t *testing.T) {
		// What export predicts of systemd's EnvironmentFile= is what
		// systemd does (the table export's unit test uses).
		sample, err := os.ReadFile(filepath.Join(repoRoot(), "export/testdata/systemd-envfile/sample.env"))
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]string
		b, _ := os.ReadFile(filepath.Join(repoRoot(), "export/testdata/systemd-envfile/want.json"))
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, proj, map[string]string{"sample.env": string(sample)})
		out := filepath.Join(proj, "sample.out")
		s.install(t, "envdialect", fmt.Sprintf("[Service]\nType=oneshot\nEnvironmentFile=%s/sample.env\nExecStart=/bin/sh -c 'env -0 > %s'\n", proj, out))
		s.must(t, "systemctl", "start", "envdialect")
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, kv := range strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok && len(k) == 1 {
				got[k] = v
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("systemd's EnvironmentFile= (-export's table +systemd):\n%s", d)
		}
		s.waitJournal(t, "envdialect", "Ignoring invalid environment assignment 'export C=v'")
		// And export refuses an env file systemd would read otherwise,
		// naming the line.
		writeFiles(t, proj, map[string]string{".env": "LOG_LEVEL=info # the level\n", "dialect.hcl": `launch "dialect" {
  command  = ["/bin/sleep", "100"]
  env_file = ".env"
}`})
		cmd := exec.Command(bin, "export", "--to", "systemd", filepath.Join(proj, "dialect.hcl"))
		if o, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(o), "systemd cannot express env_file line 1 (LOG_LEVEL)") {
			t.Errorf("export of a shell-dialect env file: %v\n%s", err, o)
		}
	})

	t.Run("example 03", func(t *testing.T) {
		port := launchertest.FreePort(t)
		ex.setPort(t, port)
		unit := export(t, "--to", "systemd", ex.dir+"/childproof.hcl:resource-env-fixed", "--childproof", bin, "--var", fmt.Sprintf("port=%d", port))
		s.install(t, "resource-env-fixed", unit)
		// The header's list: the override the env file also sets, and the key.
		s.writeFile(t, "/etc/childproof/resource-env-fixed.env", "HF_HUB_ENABLE_HF_TRANSFER=0\nMOCK_LLM_KEY="+systemdCanary+"\n", 0o600)
		if out, err := s.run(t, "systemctl", "start", "resource-env-fixed"); err != nil {
			t.Fatalf("start: %v\n%s\n%s", err, out, s.journal(t, "resource-env-fixed"))
		}
		if p := s.show(t, "resource-env-fixed", "ActiveState", "Result"); p["ActiveState"] != "active" || p["Result"] != "success" {
			t.Errorf("after start: %v", p)
		}
		s.waitJournal(t, "resource-env-fixed", "verified pid", "HF_HUB_ENABLE_HF_TRANSFER present, matches")
		s.must(t, "systemctl", "stop", "resource-env-fixed")
		if p := s.show(t, "resource-env-fixed", "ActiveState"); p["ActiveState"] != "inactive" {
			t.Errorf("after stop: %v", p)
		}
		if strings.Contains(s.journal(t, "resource-env-fixed"), systemdCanary) {
			t.Error("the journal holds the secret's value")
		}
	})

	writeFiles(t, proj, map[string]string{
		"spec.hcl":  systemdSpec(mockLLM, proj),
		"fork.sh":   "#!/bin/bash\nsleep 300 &\necho $! > " + proj + "/forked.pid\nexec " + mockLLM + " --addr \"$1\"\n",
		"crash.py":  "import socket, sys, time\ns = socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\ns.bind(('127.0.0.1', int(sys.argv[1])))\ns.listen()\ntime.sleep(3)\nsys.exit(1)\n",
		"ignore.py": "import signal, socket, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ns = socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\ns.bind(('127.0.0.1', int(sys.argv[1])))\ns.listen()\ntime.sleep(3600)\n",
	})
	spec := filepath.Join(proj, "spec.hcl")
	unitOf := func(t *testing.T, name string, port int) string {
		return export(t, "--to", "systemd", spec+":"+name, "--childproof", bin, "--var", fmt.Sprintf("port=%d", port))
	}

	t.Run("env() in argv, a dispatch that forks", func(t *testing.T) {
		port := launchertest.FreePort(t)
		unit := unitOf(t, "forks", port)
		if !strings.Contains(unit, "${ADDR}") {
			t.Fatalf("unit:\n%s", unit)
		}
		s.install(t, "forks", unit)
		s.writeFile(t, "/etc/childproof/forks.env", fmt.Sprintf("ADDR=127.0.0.1:%d\nMOCK_LLM_KEY=%s\n", port, systemdCanary), 0o600)
		if out, err := s.run(t, "systemctl", "start", "forks"); err != nil {
			t.Fatalf("start: %v\n%s\n%s", err, out, s.journal(t, "forks"))
		}
		s.waitJournal(t, "forks", "verified pid", fmt.Sprintf("listening on 127.0.0.1:%d", port))
		forked, _ := os.ReadFile(filepath.Join(proj, "forked.pid"))
		pid := strings.TrimSpace(string(forked))
		s.must(t, "systemctl", "stop", "forks")
		// KillMode=control-group: the forked child is gone too.
		if out, err := s.run(t, "kill", "-0", pid); err == nil {
			t.Errorf("the dispatch's forked child (pid %s in the container) outlived the stop: %s", pid, out)
		}
	})

	t.Run("stale listener", func(t *testing.T) {
		port := launchertest.FreePort(t)
		s.must(t, "systemd-run", "--unit=stale", "-p", "Type=exec", "-E", "MOCK_LLM_KEY=stale-key", mockLLM, "--addr", fmt.Sprintf("127.0.0.1:%d", port))
		t.Cleanup(func() { s.run(t, "systemctl", "stop", "stale") })
		waitFor(t, 30*time.Second, "the stale listener", func() (bool, string) {
			j := s.journal(t, "stale")
			return strings.Contains(j, "listening on"), j
		})
		s.install(t, "api", unitOf(t, "api", port))
		s.writeFile(t, "/etc/childproof/api.env", "MOCK_LLM_KEY="+systemdCanary+"\n", 0o600)
		if _, err := s.run(t, "systemctl", "start", "api"); err == nil {
			t.Fatal("the unit started although another process holds its port")
		}
		if p := s.show(t, "api", "ActiveState", "Result"); p["ActiveState"] != "failed" || p["Result"] != "exit-code" {
			t.Errorf("%v\n%s", p, s.journal(t, "api"))
		}
		// Where ExecStartPost's verify ran, it names the holder, exit 4
		// (was "no such process", exit 5): "port N is held by a process
		// this launch did not start, and pid P is gone" when the worker
		// already failed its bind, or "127.0.0.1:N held by pid H" (the
		// port-foreign problem) when verify ran first — both "held by".
		// When the main process exits before systemd starts
		// ExecStartPost, no verify runs and the failed start is the whole
		// outcome (verify_pid_stale_port.txtar checks the exit-4 path
		// itself, without a race).
		waitFor(t, 20*time.Second, "api's journal to end the failed start", func() (bool, string) {
			j := s.journal(t, "api")
			if strings.Contains(j, "Control process exited") {
				return strings.Contains(j, "held by") && strings.Contains(j, "status=4/"), j
			}
			return strings.Contains(j, "Failed to start api.service"), j
		})
	})

	t.Run("missing secret", func(t *testing.T) {
		// The unit reads /etc/childproof/api.env (named after the launch).
		port := launchertest.FreePort(t)
		s.must(t, "rm", "-f", "/etc/childproof/api.env")
		s.install(t, "api", unitOf(t, "api", port))
		s.must(t, "systemctl", "reset-failed", "api")
		// Without the env file systemd refuses to start.
		if _, err := s.run(t, "systemctl", "start", "api"); err == nil {
			t.Fatal("started without its env file")
		}
		if p := s.show(t, "api", "Result"); p["Result"] != "resources" {
			t.Errorf("without the env file: %v\n%s", p, s.journal(t, "api"))
		}
		// An env file without the key: mock-llm refuses to start, the
		// check fails the start.
		s.writeFile(t, "/etc/childproof/api.env", "OTHER=1\n", 0o600)
		s.must(t, "systemctl", "reset-failed", "api")
		if _, err := s.run(t, "systemctl", "start", "api"); err == nil {
			t.Fatal("started without its key")
		}
		if p := s.show(t, "api", "ActiveState", "Result"); p["ActiveState"] != "failed" || p["Result"] != "exit-code" {
			t.Errorf("without the key: %v\n%s", p, s.journal(t, "api"))
		}
	})

	t.Run("restart limit, then reset-failed", func(t *testing.T) {
		// restart { on-failure, max = 1 }: two starts, then the unit stays
		// failed until systemctl reset-failed (the header says so).
		port := launchertest.FreePort(t)
		unit := unitOf(t, "crashes", port)
		if !strings.Contains(unit, "systemctl reset-failed crashes before starting it again") || !strings.Contains(unit, "StartLimitBurst=2\n") {
			t.Fatalf("unit:\n%s", unit)
		}
		s.install(t, "crashes", unit)
		s.must(t, "systemctl", "start", "crashes")
		// Measured with systemd 252: the start after the last allowed one is
		// refused ("Start request repeated too quickly"), the unit failed
		// with the worker's result (exit-code), NRestarts counting the
		// refused restart too.
		s.waitJournal(t, "crashes", "Start request repeated too quickly")
		if n := strings.Count(s.journal(t, "crashes"), "verified pid"); n != 2 {
			t.Errorf("%d verified starts, want 2 (the first and max = 1 restart)\n%s", n, s.journal(t, "crashes"))
		}
		if p := s.show(t, "crashes", "ActiveState"); p["ActiveState"] != "failed" {
			t.Errorf("after the limit: %v", p)
		}
		if _, err := s.run(t, "systemctl", "start", "crashes"); err == nil {
			t.Error("started again past the start limit without reset-failed")
		}
		s.must(t, "systemctl", "reset-failed", "crashes")
		if out, err := s.run(t, "systemctl", "start", "crashes"); err != nil {
			t.Errorf("after reset-failed: %v\n%s", err, out)
		}
		s.run(t, "systemctl", "stop", "crashes")
	})

	t.Run("a worker that ignores SIGTERM", func(t *testing.T) {
		port := launchertest.FreePort(t)
		unit := unitOf(t, "stubborn", port)
		if !strings.Contains(unit, "TimeoutStopSec=3s\n") {
			t.Fatalf("unit:\n%s", unit)
		}
		s.install(t, "stubborn", unit)
		if out, err := s.run(t, "systemctl", "start", "stubborn"); err != nil {
			t.Fatalf("start: %v\n%s\n%s", err, out, s.journal(t, "stubborn"))
		}
		start := time.Now()
		s.must(t, "systemctl", "stop", "stubborn")
		took := time.Since(start)
		p := s.show(t, "stubborn", "ActiveState", "Result")
		// TimeoutStopSec=3s (the spec's stop timeout; export's tests check
		// childproof's 10s default), not systemd's 90 s.
		if took < 2500*time.Millisecond || took > 40*time.Second || p["Result"] != "timeout" {
			t.Errorf("stop took %s: %v\n%s", took, p, s.journal(t, "stubborn"))
		}
	})
}

// systemdSpec: a server with a secret, a dispatch that forks and takes its
// address from env(), and a worker that ignores SIGTERM (stopped after a
// short timeout: the wait for it is the test's).
func systemdSpec(mock, proj string) string {
	return fmt.Sprintf(`variable "port" {
  default = 1
}
launch "api" {
  command = [%[1]q, "--addr", "127.0.0.1:${var.port}"]
  env     = { MOCK_LLM_KEY = env("MOCK_LLM_KEY") }
  worker { comm = "mock-llm" }
  port "http" {
    number = var.port
  }
}
launch "forks" {
  dispatch = ["fork.sh", env("ADDR")]
  env      = { MOCK_LLM_KEY = env("MOCK_LLM_KEY") }
  worker { comm = "mock-llm" }
  port "http" {
    number = var.port
  }
}
launch "crashes" {
  command = ["/usr/bin/python3", "%[2]s/crash.py", "${var.port}"]
  worker { comm = "python3" }
  port "http" {
    number = var.port
  }
  restart {
    policy  = "on-failure"
    max     = 1
    backoff = "1s"
  }
}
launch "stubborn" {
  command = ["/usr/bin/python3", "%[2]s/ignore.py", "${var.port}"]
  worker { comm = "python3" }
  port "http" {
    number = var.port
  }
  stop {
    timeout = "3s"
  }
}
`, mock, proj)
}

// example03 is a copy of examples/03-dispatch-resource-env whose dispatch
// script serves a port of the test's choosing.
type example03 struct {
	root, dir, script, orig string
}

func copyExample03Dir(t *testing.T) *example03 {
	t.Helper()
	dir := copyExample03(t, 18083)
	script := filepath.Join(dir, "scripts", "dispatch-fixed.sh")
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	return &example03{root: filepath.Dir(filepath.Dir(dir)), dir: dir, script: script, orig: string(b)}
}

func (x *example03) setPort(t *testing.T, port int) {
	t.Helper()
	if err := os.WriteFile(x.script, []byte(strings.ReplaceAll(x.orig, "18083", fmt.Sprint(port))), 0o755); err != nil {
		t.Fatal(err)
	}
}
