package realservers

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/launcher/launchertest"
	"golang.org/x/sys/unix"
)

// Daemons that fork out of the launched process (issue 36 item 6): nginx
// with "daemon on" and redis-server --daemonize yes, with a cgroup and
// without one (CHILDPROOF_NO_CGROUP=1).

// daemon is one real daemon to launch.
type daemon struct {
	name string
	// prog is the program it runs, pkg its Debian package.
	prog, pkg string
	// files are written to the launch's directory ({{PORT}}, {{DIR}}
	// replaced).
	files map[string]string
	// args follow prog ({{PORT}}, {{DIR}} replaced).
	args []string
	// pidfile is where the daemon writes its pid, under the directory.
	pidfile string
	// selector is the worker block.
	selector string
}

func daemons() []daemon {
	user := ""
	if os.Geteuid() == 0 {
		user = "user www-data;"
	}
	return []daemon{
		{
			name: "nginx",
			prog: "/usr/sbin/nginx", pkg: "nginx",
			files:    map[string]string{"nginx.conf": nginxConf("on", user, "{{DIR}}/error.log")},
			args:     []string{"-e", "{{DIR}}/error.log", "-p", "{{DIR}}", "-c", "{{DIR}}/nginx.conf"},
			pidfile:  "nginx.pid",
			selector: `worker { exe = "/usr/sbin/nginx" }`,
		},
		{
			name: "redis",
			prog: "/usr/bin/redis-server", pkg: "redis-server",
			args:     []string{"--port", "{{PORT}}", "--bind", "127.0.0.1", "--daemonize", "yes", "--pidfile", "{{DIR}}/redis.pid", "--dir", "{{DIR}}", "--logfile", "{{DIR}}/redis.log", "--save", "", "--appendonly", "no"},
			pidfile:  "redis.pid",
			selector: `worker { exe = "/usr/bin/redis-server" }`, // a symlink to redis-check-rdb
		},
	}
}

// TestDaemons: each daemon, with a cgroup (as root) and without, is
// selected as the worker (the daemon, not the launcher that exited),
// owns the port, has the required variable; verify passes, ps shows it
// alive, stop ends every process seen of it. Started through a wrapper
// that exports another value of a protected name, run exits 3.
func TestDaemons(t *testing.T) {
	t.Parallel()
	for _, d := range daemons() {
		for _, mode := range []string{"cgroup", "no-cgroup"} {
			t.Run(d.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				if _, err := os.Stat(d.prog); err != nil {
					t.Skipf("%s is not installed here (Debian package %s; .ci/run installs it)", d.prog, d.pkg)
				}
				if mode == "cgroup" && os.Geteuid() != 0 {
					t.Skip("cgroup mode needs root")
				}
				t.Run("healthy", func(t *testing.T) { runDaemon(t, d, mode, false) })
				t.Run("diverged", func(t *testing.T) { runDaemon(t, d, mode, true) })
			})
		}
	}
}

// runDaemon launches d in mode; with wrapped, through a script that
// exports APP_MODE=2 (the spec says 1) before it execs the daemon.
func runDaemon(t *testing.T, d daemon, mode string, wrapped bool) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755) // nginx's www-data workers read below it
	port := launchertest.FreePort(t)
	subst := strings.NewReplacer("{{PORT}}", strconv.Itoa(port), "{{DIR}}", dir).Replace
	for name, body := range d.files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(subst(body)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv := []string{strconv.Quote(d.prog)}
	for _, a := range d.args {
		argv = append(argv, strconv.Quote(subst(a)))
	}
	if wrapped {
		script := "#!/bin/sh\nexport APP_MODE=2\nexec " + d.prog
		for _, a := range d.args {
			script += " '" + subst(a) + "'"
		}
		if err := os.WriteFile(filepath.Join(dir, "wrap.sh"), []byte(script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		argv = []string{strconv.Quote("/bin/sh"), strconv.Quote(filepath.Join(dir, "wrap.sh"))}
	}
	spec := fmt.Sprintf(`launch %q {
  command = [%s]
  env = {
    APP_TOKEN = env("APP_TOKEN")
    APP_MODE  = "1"
  }
  require = ["APP_TOKEN"]
  %s
  port "main" {
    number = %d
  }
  ready {
    timeout = "30s"
  }
}
`, d.name, strings.Join(argv, ", "), d.selector, port)
	if err := os.WriteFile(filepath.Join(dir, "childproof.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "APP_TOKEN=" + canary, "NO_COLOR=1", "CHILDPROOF_STATE_DIR=" + state}
	if mode == "no-cgroup" {
		env = append(env, "CHILDPROOF_NO_CGROUP=1")
	}
	// The daemon's pid, from its pidfile; the cleanup ends it by that pid
	// if the product left it running (a failure is reported by then).
	pidfile := filepath.Join(dir, d.pidfile)
	daemonPid := func() int {
		b, _ := os.ReadFile(pidfile)
		p, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return p
	}
	var seen []int
	t.Cleanup(func() {
		cli(t, dir, env, "stop", d.name)
		for _, p := range seen {
			if fd, err := unix.PidfdOpen(p, 0); err == nil {
				if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", p)); strings.HasSuffix(exe, filepath.Base(d.prog)) || strings.Contains(exe, "redis") {
					unix.PidfdSendSignal(fd, syscall.SIGKILL, nil, 0)
				}
				unix.Close(fd)
			}
		}
	})

	args := []string{"run", "--detach", "--format", "json", "childproof.hcl"}
	if wrapped {
		// The lint refuses the wrapper (assign-clobber, exit 1): the
		// check on the daemon itself is what this case is about.
		args = append(args, "--no-lint")
	}
	out, errOut, code := cli(t, dir, env, args...)
	var r runReport
	jerr := json.Unmarshal([]byte(out), &r)
	waitFor(3*time.Second, func() bool { return daemonPid() > 0 })
	if p := daemonPid(); p > 0 {
		seen = append(seen, p)
		seen = append(seen, children(p)...)
	}
	log, _ := os.ReadFile(filepath.Join(state, "logs", d.name+".log"))
	if wrapped {
		if code != 3 || r.Verified {
			t.Fatalf("run --detach through a wrapper that exports APP_MODE=2: exit %d, verified %v, want exit 3\nstdout: %s\nstderr: %s\nlog:\n%s", code, r.Verified, out, errOut, log)
		}
		if !slices.ContainsFunc(r.Env, func(e envEntry) bool { return e.Name == "APP_MODE" && e.Present && !e.Matches }) {
			t.Errorf("env: %+v, want APP_MODE present and not matching", r.Env)
		}
		t.Logf("exit 3: %s", strings.TrimSpace(errOut))
		noneLeft(t, seen, port, "the failed run")
		return
	}
	if jerr != nil || code != 0 || !r.Verified || r.Worker == nil {
		t.Fatalf("run --detach: exit %d, verified %v\nstdout: %s\nstderr: %s\nlog:\n%s", code, r.Verified, out, errOut, log)
	}
	worker := r.Worker.Pid
	t.Logf("worker pid %d comm %q exe %s, pidfile %d, evidence %q", worker, r.Worker.Comm, r.Worker.Exe, daemonPid(), r.EnvEvidence)
	if r.Port == nil || !r.Port.Owned || r.Port.OwnerPid != worker {
		t.Errorf("port: %+v, want owned by the worker (pid %d)", r.Port, worker)
	}
	if worker != daemonPid() && len(r.Chain) == 0 && daemonPid() > 0 {
		// The run judged the launched process in the moment between
		// its bind and its daemon's fork (seen on a loaded machine: it
		// was alive, held the port and answered; the report names no
		// chain: the worker was the launched process). That was true then;
		// what follows must find the daemon, judged by the exec-time
		// evidence it was forked with.
		t.Logf("the run judged pid %d before it forked the daemon (pid %d)", worker, daemonPid())
		waitFor(10*time.Second, func() bool { _, err := os.Stat(fmt.Sprintf("/proc/%d", worker)); return err != nil })
		worker = daemonPid()
	}
	if worker != daemonPid() {
		t.Errorf("worker pid %d, want the daemon (pid %d in %s)", worker, daemonPid(), d.pidfile)
	}
	if !ownsPort(t, worker, port) {
		t.Errorf("the worker (pid %d) holds no listener on port %d", worker, port)
	}
	for _, name := range []string{"APP_TOKEN", "APP_MODE"} {
		if !slices.ContainsFunc(r.Env, func(e envEntry) bool { return e.Name == name && e.Present && e.Matches }) {
			t.Errorf("env: %+v, want %s present and matching", r.Env, name)
		}
	}
	seen = append(seen, children(worker)...)

	out, errOut, code = cli(t, dir, env, "verify", "childproof.hcl")
	if code != 0 || !strings.HasPrefix(out, "verified "+d.name+": worker pid "+strconv.Itoa(worker)) {
		t.Errorf("verify: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = cli(t, dir, env, "ps", "--format", "json")
	var ps struct {
		Launches []struct {
			Name, Status string
			Worker       struct{ Pid int }
		}
	}
	if err := json.Unmarshal([]byte(out), &ps); err != nil || code != 0 || len(ps.Launches) != 1 || ps.Launches[0].Status != "alive" || ps.Launches[0].Worker.Pid != worker {
		t.Errorf("ps: exit %d %s", code, out)
	}
	out, errOut, code = cli(t, dir, env, "stop", d.name)
	if code != 0 {
		t.Errorf("stop: exit %d\n%s%s", code, out, errOut)
	}
	noneLeft(t, seen, port, "stop")
}

// noneLeft fails t for each of pids still running, or a listener on port,
// 5 s after what ended them.
func noneLeft(t *testing.T, pids []int, port int, after string) {
	t.Helper()
	waitFor(5*time.Second, func() bool {
		for _, p := range pids {
			if commOf(p) != "" {
				return false
			}
		}
		ls, err := sockdiag.Listeners(uint16(port))
		return err == nil && len(ls) == 0
	})
	for _, p := range pids {
		if c := commOf(p); c != "" {
			st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
			t.Errorf("pid %d (%s) still runs after %s: %s", p, c, after, st)
		}
	}
	if ls, _ := sockdiag.Listeners(uint16(port)); len(ls) > 0 {
		t.Errorf("port %d still has a listener after %s", port, after)
	}
}
