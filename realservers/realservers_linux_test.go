package realservers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/proc"
	"golang.org/x/sys/unix"
)

// bin is the childproof binary built for this run.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "childproof-realservers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = filepath.Join(dir, "childproof")
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", bin, "./cmd/childproof")
	build.Dir = filepath.Join(filepath.Dir(file), "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building childproof: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is one real server to launch.
type server struct {
	name string
	// need lists the programs it runs, with the Debian package of each.
	need map[string]string
	// files are written to the launch's directory ({{PORT}} replaced).
	files map[string]string
	// command is the argv ({{PORT}}, {{DIR}} replaced).
	command []string
	// selector is the worker { } block a user would write first.
	selector string
	// ready is the readiness path ("" for a TCP connect).
	ready string
	// minTree is the fewest processes the tree has once settled.
	minTree int
	// rewrites: it writes a process title over its environment block, so
	// verify must say it judged the worker by the exec-time capture.
	rewrites bool
	// preFork: several processes of the tree serve the port; the worker
	// must be the launched process itself (the shallowest holder), and
	// the launch is relaunched with --set X=1 before it is stopped.
	preFork bool
}

const canary = "canary-APP-TOKEN-7f3c9a1e"

// wsgiApp and asgiApp refuse to start without APP_TOKEN.
const wsgiApp = `import os
if not os.environ.get("APP_TOKEN"):
    raise SystemExit("APP_TOKEN missing")
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok\n"]
`

// haproxyCfg answers every request itself (no backend).
const haproxyCfg = `global
    master-worker
defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
frontend f
    bind 127.0.0.1:{{PORT}}
    http-request return status 200 content-type text/plain string ok
`

const asgiApp = `import os
if not os.environ.get("APP_TOKEN"):
    raise SystemExit("APP_TOKEN missing")
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok\n"})
`

func servers() []server {
	root := os.Geteuid() == 0
	nginxUser, fpmUser, apacheUser := "", "", ""
	if root {
		nginxUser = "user www-data;"
		fpmUser = "user = www-data\ngroup = www-data\n"
		apacheUser = "User www-data\nGroup www-data\n"
	}
	return []server{
		{
			name:     "gunicorn",
			need:     map[string]string{"gunicorn": "gunicorn", "/usr/lib/python3/dist-packages/setproctitle": "python3-setproctitle"},
			files:    map[string]string{"app.py": wsgiApp},
			command:  []string{"gunicorn", "--bind", "127.0.0.1:{{PORT}}", "--workers", "2", "app:app"},
			selector: `worker { comm = "gunicorn" }`,
			ready:    "/",
			minTree:  3,
			rewrites: true,
		},
		{
			name:     "uvicorn",
			need:     map[string]string{"uvicorn": "uvicorn"},
			files:    map[string]string{"app.py": asgiApp},
			command:  []string{"uvicorn", "--host", "127.0.0.1", "--port", "{{PORT}}", "app:app"},
			selector: `worker { comm = "uvicorn" }`,
			ready:    "/",
			minTree:  1,
		},
		{
			name:     "nginx",
			need:     map[string]string{"/usr/sbin/nginx": "nginx"},
			files:    map[string]string{"nginx.conf": nginxConf("off", nginxUser, "stderr")},
			command:  []string{"/usr/sbin/nginx", "-e", "stderr", "-p", "{{DIR}}", "-c", "{{DIR}}/nginx.conf"},
			selector: `worker { exe = "/usr/sbin/nginx" }`,
			ready:    "/",
			minTree:  3,
			rewrites: true,
		},
		{
			name: "redis",
			need: map[string]string{"redis-server": "redis-server"},
			// --save "": an empty argv element.
			command:  []string{"redis-server", "--port", "{{PORT}}", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", "{{DIR}}"},
			selector: `worker { exe = "/usr/bin/redis-server" }`, // a symlink to redis-check-rdb
			minTree:  1,
			rewrites: true,
		},
		{
			name: "node",
			need: map[string]string{"node": "nodejs"},
			files: map[string]string{"server.js": `if (!process.env.APP_TOKEN) { console.error("APP_TOKEN missing"); process.exit(1); }
process.title = "node-api-server";
require("http").createServer((req, res) => { res.end("ok\n"); }).listen(Number(process.argv[2]), "127.0.0.1");
`},
			command:  []string{"node", "server.js", "{{PORT}}"},
			selector: `worker { comm = "node" }`,
			ready:    "/",
			minTree:  1,
		},
		{
			// uvicorn's supervisor binds, then spawns (multiprocessing,
			// spawn: each worker execs python again) workers that
			// inherit the socket, plus a resource tracker.
			name:     "uvicorn-workers",
			need:     map[string]string{"uvicorn": "uvicorn"},
			files:    map[string]string{"app.py": asgiApp},
			command:  []string{"uvicorn", "--host", "127.0.0.1", "--port", "{{PORT}}", "--workers", "2", "app:app"},
			selector: `worker { comm = "uvicorn" }`,
			ready:    "/",
			minTree:  3,
			preFork:  true,
		},
		{
			// node's cluster: the primary forks workers and holds the
			// listening socket for them (round-robin).
			name: "node-cluster",
			need: map[string]string{"node": "nodejs"},
			files: map[string]string{"server.js": `const cluster = require("cluster");
if (!process.env.APP_TOKEN) { console.error("APP_TOKEN missing"); process.exit(1); }
if (cluster.isPrimary) {
  for (let i = 0; i < 2; i++) cluster.fork();
} else {
  require("http").createServer((req, res) => { res.end("ok\n"); }).listen(Number(process.argv[2]), "127.0.0.1");
}
`},
			command:  []string{"node", "server.js", "{{PORT}}"},
			selector: `worker { comm = "node" }`,
			ready:    "/",
			minTree:  3,
			preFork:  true,
		},
		{
			name:     "gunicorn-workers",
			need:     map[string]string{"gunicorn": "gunicorn", "/usr/lib/python3/dist-packages/setproctitle": "python3-setproctitle"},
			files:    map[string]string{"app.py": wsgiApp},
			command:  []string{"gunicorn", "--bind", "127.0.0.1:{{PORT}}", "--workers", "3", "app:app"},
			selector: `worker { comm = "gunicorn" }`,
			ready:    "/",
			minTree:  4,
			rewrites: true,
			preFork:  true,
		},
		{
			// --preload: the app is imported in the master before the
			// workers fork.
			name:     "gunicorn-preload",
			need:     map[string]string{"gunicorn": "gunicorn", "/usr/lib/python3/dist-packages/setproctitle": "python3-setproctitle"},
			files:    map[string]string{"app.py": wsgiApp},
			command:  []string{"gunicorn", "--bind", "127.0.0.1:{{PORT}}", "--workers", "3", "--preload", "app:app"},
			selector: `worker { comm = "gunicorn" }`,
			ready:    "/",
			minTree:  4,
			rewrites: true,
			preFork:  true,
		},
		{
			// haproxy -W (master-worker): the master binds, forks its
			// worker, then re-execs itself into wait mode and lets go of
			// the socket: the worker is the forked process, judged once
			// the tree stopped changing (docs/launcher.md).
			name:     "haproxy",
			need:     map[string]string{"/usr/sbin/haproxy": "haproxy"},
			files:    map[string]string{"haproxy.cfg": haproxyCfg},
			command:  []string{"/usr/sbin/haproxy", "-W", "-db", "-f", "{{DIR}}/haproxy.cfg"},
			selector: `worker { comm = "haproxy" }`,
			ready:    "/",
			minTree:  2,
		},
		{
			// php-fpm: the master (whose title covers its environment
			// block) holds the FastCGI socket with its pool's workers.
			name: "php-fpm",
			need: map[string]string{"/usr/sbin/php-fpm8.2": "php-fpm"},
			files: map[string]string{"fpm.conf": "[global]\nerror_log = /proc/self/fd/2\ndaemonize = no\npid = {{DIR}}/fpm.pid\n[www]\n" + fpmUser +
				"listen = 127.0.0.1:{{PORT}}\npm = static\npm.max_children = 2\n"},
			command:  []string{"/usr/sbin/php-fpm8.2", "-F", "-y", "{{DIR}}/fpm.conf", "-p", "{{DIR}}"},
			selector: `worker { comm = "php-fpm8.2" }`,
			minTree:  3,
			rewrites: true,
			preFork:  true,
		},
		{
			// Apache httpd with the prefork MPM, in the foreground.
			name: "apache-prefork",
			need: map[string]string{"/usr/sbin/apache2": "apache2", "/usr/lib/apache2/modules/mod_mpm_prefork.so": "apache2"},
			files: map[string]string{"httpd.conf": `ServerRoot "{{DIR}}"
ServerName localhost
Listen 127.0.0.1:{{PORT}}
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
PidFile {{DIR}}/apache.pid
DefaultRuntimeDir {{DIR}}
Mutex file:{{DIR}}
ErrorLog /dev/stderr
` + apacheUser + `DocumentRoot "{{DIR}}"
StartServers 2
MinSpareServers 1
MaxSpareServers 2
`},
			command:  []string{"/usr/sbin/apache2", "-DFOREGROUND", "-f", "{{DIR}}/httpd.conf"},
			selector: `worker { comm = "apache2" }`,
			minTree:  3,
			preFork:  true,
		},
		{
			// A pyenv/asdf-style shim: a script named python3 that execs
			// the real interpreter in the same pid, through env (two execs).
			name: "shim",
			need: map[string]string{"/usr/bin/python3": "python3"},
			files: map[string]string{"shims/python3": "#!/bin/bash\nexec /usr/bin/env /usr/bin/python3 \"$@\"\n",
				"serve.py": `import os, sys, http.server
if not os.environ.get("APP_TOKEN"):
    raise SystemExit("APP_TOKEN missing")
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), http.server.SimpleHTTPRequestHandler).serve_forever()
`},
			command:  []string{"{{DIR}}/shims/python3", "serve.py", "{{PORT}}"},
			selector: `worker { comm = "python3" }`,
			ready:    "/",
			minTree:  1,
		},
	}
}

func TestRealServers(t *testing.T) {
	t.Parallel()
	for _, s := range servers() {
		for _, withSelector := range []bool{true, false} {
			name := s.name + "/no-selector"
			if withSelector {
				name = s.name + "/selector"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				for prog, pkg := range s.need {
					if _, err := exec.LookPath(prog); err != nil {
						if _, err := os.Stat(prog); err != nil {
							t.Skipf("%s is not installed here (Debian package %s; .ci/run installs it)", prog, pkg)
						}
					}
				}
				runServer(t, s, withSelector)
			})
		}
	}
}

// cli runs childproof with args in dir; it returns stdout, stderr and the
// exit code, and fails the test if the canary appears in either. Its time
// limit catches a hang, so it is longer than anything childproof waits for
// itself: a relaunch stops the old tree (up to the stop timeout, 10 s) and
// then waits up to the ready timeout (60 s). At 60 s it killed a slow
// relaunch at load 13-34 (TestGunicornChurn) before childproof could say
// what it was waiting for.
func cli(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Dir, c.Env = dir, env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("childproof %v: %v", args, err)
	}
	if strings.Contains(out.String()+errb.String(), canary) {
		t.Errorf("childproof %v printed the value of APP_TOKEN", args)
	}
	return out.String(), errb.String(), code
}

type envEntry struct {
	Name    string `json:"name"`
	Present bool   `json:"present"`
	Matches bool   `json:"matches"`
}

type runReport struct {
	Verified bool `json:"verified"`
	Worker   *struct {
		Pid  int    `json:"pid"`
		Comm string `json:"comm"`
		Exe  string `json:"exe"`
	} `json:"worker"`
	Env  []envEntry `json:"env"`
	Port *struct {
		OwnerPid int  `json:"owner_pid"`
		Owned    bool `json:"owned"`
	} `json:"port"`
	Chain []struct {
		Pid int `json:"pid"`
	} `json:"chain"`
	EnvEvidence string `json:"env_evidence"`
	Problems    []struct {
		Kind, Message string
	} `json:"problems"`
}

// setupServer writes s's files and childproof.hcl into a new directory;
// it returns the directory, the environment for cli (without a state
// dir) and the port.
func setupServer(t *testing.T, s server, withSelector bool) (string, []string, int) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755) // nginx's www-data workers read below it
	port := launchertest.FreePort(t)
	subst := func(x string) string {
		return strings.NewReplacer("{{PORT}}", strconv.Itoa(port), "{{DIR}}", dir).Replace(x)
	}
	for name, body := range s.files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(subst(body)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var argv []string
	for _, a := range s.command {
		argv = append(argv, strconv.Quote(subst(a)))
	}
	sel := ""
	if withSelector {
		sel = s.selector
	}
	// ready.timeout bounds a start that should succeed: 60 s, as a
	// gunicorn recycling its workers under a request loop answered its
	// first GET after more than 30 s at load 30 (TestGunicornChurn).
	ready := ""
	if s.ready != "" {
		ready = fmt.Sprintf("ready {\n    http = %q\n    timeout = \"60s\"\n  }", s.ready)
	} else {
		ready = "ready {\n    timeout = \"60s\"\n  }"
	}
	spec := fmt.Sprintf(`launch %q {
  command = [%s]
  env = {
    APP_TOKEN = env("APP_TOKEN")
  }
  require = ["APP_TOKEN"]
  %s
  port "main" {
    number = %d
  }
  %s
}
`, s.name, strings.Join(argv, ", "), sel, port, ready)
	if err := os.WriteFile(filepath.Join(dir, "childproof.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "APP_TOKEN=" + canary, "NO_COLOR=1"}, port
}

func runServer(t *testing.T, s server, withSelector bool) {
	dir, env, port := setupServer(t, s, withSelector)
	state := filepath.Join(t.TempDir(), "state")
	env = append(env, "CHILDPROOF_STATE_DIR="+state)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cli(t, dir, env, "stop", s.name)
		}
	})

	out, errOut, code := cli(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
	var r runReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || !r.Verified || r.Worker == nil {
		log, _ := os.ReadFile(filepath.Join(state, "logs", s.name+".log"))
		t.Fatalf("run --detach: exit %d, verified %v\nstdout: %s\nstderr: %s\nlog:\n%s", code, r.Verified, out, errOut, log)
	}
	worker := r.Worker.Pid
	t.Logf("worker pid %d comm %q exe %s, env evidence %q", worker, r.Worker.Comm, r.Worker.Exe, r.EnvEvidence)
	if r.Port == nil || !r.Port.Owned || r.Port.OwnerPid != worker {
		t.Errorf("port: %+v, want owned by the worker (pid %d)", r.Port, worker)
	}
	if len(r.Env) != 1 || !r.Env[0].Present || !r.Env[0].Matches {
		t.Errorf("env: %+v", r.Env)
	}
	// The worker holds the listening socket in its own fds.
	if !ownsPort(t, worker, port) {
		t.Errorf("the worker (pid %d) holds no listener on port %d", worker, port)
	}

	verifyOK := func(when string) string {
		out, errOut, code := cli(t, dir, env, "verify", "childproof.hcl")
		if code != 0 || !strings.HasPrefix(out, "verified "+s.name) {
			t.Errorf("verify %s: exit %d\n%s%s", when, code, out, errOut)
		}
		return out
	}
	verifyOK("at once")
	settled(t, worker, s.minTree) // workers booted, titles set
	out = verifyOK("after the server settled")
	if s.rewrites && !strings.Contains(out, "evidence: the worker rewrote its environment block") {
		t.Errorf("the rewritten block is not reported:\n%s", out)
	}
	// explain judges the worker by the same evidence as verify: a
	// verified name is never "NOT the intended value" or unreadable there.
	out, errOut, code = cli(t, dir, env, "explain", "childproof.hcl", "APP_TOKEN")
	if code != 0 || !strings.Contains(out, "has the intended value on every process") || strings.Contains(out, "NOT the intended value") || strings.Contains(out, "cannot be judged") {
		t.Errorf("explain contradicts verify: exit %d\n%s%s", code, out, errOut)
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

	if s.preFork {
		preForkWorker(t, worker, port, r)
		// relaunch: a new tree verified; the old one, workers included,
		// gone, and none of it left holding the port.
		old := pinTree(t, worker, s.minTree)
		out, errOut, code = cli(t, dir, env, "relaunch", s.name, "--set", "X=1")
		if code != 0 {
			t.Fatalf("relaunch --set X=1: exit %d\n%s%s", code, out, errOut)
		}
		old.wait(t, "relaunch")
		out, errOut, code = cli(t, dir, env, "verify", "--format", "json", "childproof.hcl")
		r = runReport{}
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || !r.Verified || r.Worker == nil || r.Worker.Pid == worker {
			t.Fatalf("verify after relaunch: exit %d (old worker pid %d)\n%s%s", code, worker, out, errOut)
		}
		worker = r.Worker.Pid
		if !slices.ContainsFunc(r.Env, func(e envEntry) bool { return e.Name == "X" && e.Present && e.Matches }) {
			t.Errorf("verify after relaunch: X not verified on the new worker: %+v", r.Env)
		}
		preForkWorker(t, worker, port, r)
		settled(t, worker, s.minTree)
		verifyOK("after relaunch, settled")
	}

	// Every process of the tree, pinned by pidfd before the stop.
	tree := pinTree(t, worker, s.minTree)
	out, errOut, code = cli(t, dir, env, "stop", s.name)
	stopped = true
	if code != 0 {
		t.Errorf("stop: exit %d\n%s%s", code, out, errOut)
	}
	tree.wait(t, "stop")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if ls, err := sockdiag.Listeners(uint16(port)); err == nil && len(ls) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ls, _ := sockdiag.Listeners(uint16(port)); len(ls) > 0 {
		t.Errorf("port %d still has a listener after stop", port)
	}
	// Nothing the launch wrote holds the value.
	filepath.Walk(state, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && !strings.Contains(p, string(filepath.Separator)+"logs"+string(filepath.Separator)) {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(canary)) {
				t.Errorf("%s holds the value of APP_TOKEN", p)
			}
		}
		return nil
	})
}

// ownsPort reports whether pid holds a LISTEN socket on port.
func ownsPort(t *testing.T, pid, port int) bool {
	ls, err := sockdiag.Listeners(uint16(port))
	if err != nil {
		t.Fatal(err)
	}
	var fs proc.FS
	inodes, _ := fs.SocketInodes(pid)
	for _, l := range ls {
		if slices.Contains(inodes, l.Inode) {
			return true
		}
	}
	return false
}

// treeOf lists worker and its descendants, the members of its process
// group and of its cgroup when it has one of childproof's (which holds
// descendants re-parented to init or a subreaper too).
func treeOf(t *testing.T, worker int) []int {
	var fs proc.FS
	out := append([]int{worker}, fs.Descendants(worker)...)
	ws, err := fs.Stat(worker)
	if err != nil {
		t.Fatal(err)
	}
	pids, _ := fs.Pids()
	for _, p := range pids {
		if s, err := fs.Stat(p); err == nil && s.Pgrp == ws.Pgrp && s.State != 'Z' && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", worker)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			cg, ok := strings.CutPrefix(line, "0::")
			if !ok || !strings.Contains(cg, "/childproof-") {
				continue
			}
			for _, mnt := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
				procs, err := os.ReadFile(filepath.Join(mnt, cg, "cgroup.procs"))
				if err != nil {
					continue
				}
				for _, f := range strings.Fields(string(procs)) {
					if p, err := strconv.Atoi(f); err == nil && !slices.Contains(out, p) {
						out = append(out, p)
					}
				}
				break
			}
		}
	}
	return out
}

// pinned is a tree's processes, each pinned by a pidfd.
type pinned struct {
	pids, fds []int
}

// pinTree pins every process of worker's tree (at least min of them).
func pinTree(t *testing.T, worker, min int) pinned {
	var p pinned
	for _, pid := range treeOf(t, worker) {
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			p.pids, p.fds = append(p.pids, pid), append(p.fds, fd)
			t.Cleanup(func() { unix.Close(fd) })
		}
	}
	if len(p.pids) < min {
		t.Errorf("tree %v: %d processes, want at least %d", p.pids, len(p.pids), min)
	}
	return p
}

// settled waits for the state a server's start ends in: worker's tree has
// at least min processes, and its processes and their command lines (a
// pre-fork server's workers set their titles) stay the same over a
// second (eleven reads 100 ms apart: over 200 ms, a clean-clone run
// stopped uWSGI while a worker forked after its reload was still
// starting, and uWSGI lost the SIGINT). It gives up after 30 s, leaving
// the checks after it to say what is wrong.
func settled(t *testing.T, worker, min int) {
	t.Helper()
	snapshot := func() string {
		var b strings.Builder
		for _, pid := range treeOf(t, worker) {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			fmt.Fprintf(&b, "%d %q\n", pid, cmd)
		}
		return b.String()
	}
	last, same := "", 0
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		now := snapshot()
		if now == last && strings.Count(now, "\n") >= min {
			if same++; same >= 10 {
				return
			}
			continue
		}
		last, same = now, 0
	}
	t.Logf("the tree of %d did not settle within 30s:\n%s", worker, last)
}

// wait fails the test for each pinned process still running 5 s after
// what ended the tree.
func (p pinned) wait(t *testing.T, after string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for i, fd := range p.fds {
		for !pidfd.Exited(fd) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !pidfd.Exited(fd) {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pids[i]))
			t.Errorf("pid %d of the tree still runs after %s: %q", p.pids[i], after, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
		}
	}
}

// preForkWorker checks the pre-fork rule on a verified report: the worker
// is the launched process itself (no chain), and every process holding
// the port's listener is the worker or one of its descendants.
func preForkWorker(t *testing.T, worker, port int, r runReport) {
	t.Helper()
	if len(r.Chain) != 0 {
		t.Errorf("worker pid %d has a chain %+v: the launched process holds the port, it is the worker", worker, r.Chain)
	}
	ls, err := sockdiag.Listeners(uint16(port))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[uint64]bool{}
	for _, l := range ls {
		inodes[l.Inode] = true
	}
	var fs proc.FS
	owners := fs.SocketOwnersOf(inodes)
	// The tree after the holders: a worker the master forks while the fd
	// tables are read is then its descendant, not a stranger.
	desc := fs.Descendants(worker)
	for _, holders := range owners {
		for _, h := range holders {
			if h != worker && !slices.Contains(desc, h) {
				cmd, _ := fs.Cmdline(h)
				t.Errorf("pid %d (%q) holds port %d and is not the worker (pid %d) or its descendant", h, cmd, port, worker)
			}
		}
	}
}

// TestNoEvidenceIsUnreadable: launched untraced (no exec-time evidence), a
// server that rewrote its environment block is env-unreadable, exit 3 —
// never "not set".
func TestNoEvidenceIsUnreadable(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed here (Debian package redis-server; .ci/run installs it)")
	}
	dir := t.TempDir()
	port := launchertest.FreePort(t)
	spec := fmt.Sprintf(`launch "redis" {
  command = ["redis-server", "--port", "%d", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", %q]
  env = {
    APP_TOKEN = env("APP_TOKEN")
  }
  require = ["APP_TOKEN"]
  port "main" {
    number = %d
  }
}
`, port, dir, port)
	os.WriteFile(filepath.Join(dir, "childproof.hcl"), []byte(spec), 0o644)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "APP_TOKEN=" + canary, "CHILDPROOF_STATE_DIR=" + filepath.Join(t.TempDir(), "s"), "CHILDPROOF_NO_EXEC_CAPTURE=1"}
	t.Cleanup(func() { cli(t, dir, env, "stop", "redis") })
	out, errOut, code := cli(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
	var r runReport
	json.Unmarshal([]byte(out), &r)
	if code == 0 {
		// Verified before redis wrote its title (right after it
		// listens): verify, once it has, must say env-unreadable.
		if r.Worker == nil || !waitFor(60*time.Second, func() bool { return titled(r.Worker.Pid) }) {
			t.Fatalf("run verified, and redis (worker %+v) wrote no title over its argv within 60s\n%s%s", r.Worker, out, errOut)
		}
		t.Logf("run verified redis (pid %d) before it wrote its title; verify after it did", r.Worker.Pid)
		out, errOut, code = cli(t, dir, env, "verify", "--format", "json", "childproof.hcl")
		r = runReport{}
		json.Unmarshal([]byte(out), &r)
	}
	if code != 3 || len(r.Problems) == 0 || r.Problems[0].Kind != "env-unreadable" || strings.Contains(out+errOut, "not set") {
		t.Fatalf("exit %d, problems %+v\n%s%s", code, r.Problems, out, errOut)
	}
	t.Logf("%s", r.Problems[0].Message)
}

// threadExecPy execs itself again from a thread other than the main one
// (the launcher traces processes, not threads, so that exec escapes the
// exec-time capture), with APP_TOKEN changed when told to; the second
// stage wipes its environment block when told to (as nginx and redis do),
// then listens.
const threadExecPy = `import os, sys, threading, socket
mode, port = sys.argv[1], int(sys.argv[2])
if not mode.startswith("stage2"):
    def go():
        env = dict(os.environ)
        if mode == "change":
            env["APP_TOKEN"] = "a-value-childproof-did-not-give"
        os.execve(sys.executable, [sys.executable, __file__, "stage2-" + mode, str(port)], env)
    t = threading.Thread(target=go)
    t.start()
    t.join()
    raise SystemExit("exec failed")
if mode == "stage2-change":
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    start, end = int(fields[47]), int(fields[48])
    with open("/proc/self/mem", "r+b", buffering=0) as m:
        m.seek(start)
        m.write(b"\0" * (end - start))
s = socket.socket()
s.bind(("127.0.0.1", port))
s.listen()
while True:
    s.accept()[0].close()
`

// TestThreadExec: a worker that execs from a thread other than its main
// one is judged honestly — never "verified" on the evidence of the exec
// before. Changed and wiped: env-unreadable (exit 3), the tree stopped.
// Same environment, block intact: verified from its live environ.
func TestThreadExec(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 is not installed here (Debian package python3)")
	}
	for _, mode := range []string{"change", "same"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := server{name: "te", files: map[string]string{"te.py": threadExecPy}, command: []string{"/usr/bin/python3", "te.py", mode, "{{PORT}}"}}
			dir, env, port := setupServer(t, s, false)
			env = append(env, "CHILDPROOF_STATE_DIR="+filepath.Join(t.TempDir(), "s"))
			t.Cleanup(func() { cli(t, dir, env, "stop", "te") })
			out, errOut, code := cli(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
			var r runReport
			json.Unmarshal([]byte(out), &r)
			if mode == "same" {
				if code != 0 || !r.Verified || r.EnvEvidence != "live" {
					t.Fatalf("exit %d, verified %v, evidence %q\n%s%s", code, r.Verified, r.EnvEvidence, out, errOut)
				}
				if out, errOut, code := cli(t, dir, env, "verify", "childproof.hcl"); code != 0 {
					t.Errorf("verify: exit %d\n%s%s", code, out, errOut)
				}
				return
			}
			if code != 3 || r.Verified || len(r.Problems) == 0 || r.Problems[0].Kind != "env-unreadable" || strings.Contains(out+errOut, "not set") {
				t.Fatalf("exit %d, verified %v, problems %+v\n%s%s", code, r.Verified, r.Problems, out, errOut)
			}
			t.Logf("%s\n%s", r.Problems[0].Message, errOut)
			if r.Port != nil && r.Port.OwnerPid != 0 {
				// The failed launch stopped its tree.
				if ownsPort(t, r.Port.OwnerPid, port) {
					t.Errorf("the worker (pid %d) still holds port %d after the failed launch", r.Port.OwnerPid, port)
				}
			}
		})
	}
}

// TestMasterKilled: uvicorn's supervisor killed on its own (SIGKILL, no
// chance to end its workers) leaves its workers holding the port, re-
// parented to init. `stop` must still end every process of the tree —
// they are in the launch's own cgroup — and free the port.
func TestMasterKilled(t *testing.T) {
	t.Parallel()
	var s server
	for _, x := range servers() {
		if x.name == "uvicorn-workers" {
			s = x
		}
	}
	if _, err := exec.LookPath("uvicorn"); err != nil {
		t.Skip("uvicorn is not installed here (Debian package uvicorn; .ci/run installs it)")
	}
	dir, env, port := setupServer(t, s, false)
	env = append(env, "CHILDPROOF_STATE_DIR="+filepath.Join(t.TempDir(), "state"))
	t.Cleanup(func() { cli(t, dir, env, "stop", s.name) })
	out, errOut, code := cli(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
	var r runReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || r.Worker == nil {
		t.Fatalf("run --detach: exit %d\n%s%s", code, out, errOut)
	}
	worker := r.Worker.Pid
	if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", worker)); !strings.Contains(string(b), "/childproof-") {
		t.Skip("the launch has no cgroup here (childproof uses one as root on cgroup v2): nothing identifies the workers once their master is gone")
	}
	settled(t, worker, s.minTree) // the workers started
	tree := pinTree(t, worker, s.minTree)
	wfd := tree.fds[slices.Index(tree.pids, worker)]
	if err := unix.PidfdSendSignal(wfd, unix.SIGKILL, nil, 0); err != nil {
		t.Fatal(err)
	}
	for !pidfd.Exited(wfd) {
		time.Sleep(10 * time.Millisecond)
	}
	if ls, _ := sockdiag.Listeners(uint16(port)); len(ls) == 0 {
		t.Log("the workers let go of the port on their own")
	} else {
		// A new run finds the previous launch alive (its leftovers hold
		// the port; on_stale = "fail"): exit 6, naming it as ours, never
		// "did not start".
		out, errOut, code = cli(t, dir, env, "run", "--detach", "childproof.hcl")
		if code != 6 || !strings.Contains(errOut, "is already running") || strings.Contains(errOut, "did not start") {
			t.Errorf("run over the leftovers: exit %d\n%s%s", code, out, errOut)
		}
	}
	out, errOut, code = cli(t, dir, env, "stop", s.name)
	// The recorded worker is gone: stop says so, whether it re-selected a
	// live worker of the tree to stop (its leftover workers) or found none.
	if code != 0 || !(strings.Contains(out, "already gone") || strings.Contains(out, fmt.Sprintf("the recorded worker, pid %d, is gone", worker))) {
		t.Errorf("stop: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("%s", out)
	tree.wait(t, "stop of a launch whose master was killed")
	if ls, _ := sockdiag.Listeners(uint16(port)); len(ls) > 0 {
		t.Errorf("port %d still has a listener after stop", port)
	}
}

// TestHaproxyMasterWorker: haproxy -W's master binds, forks its worker and
// re-execs itself into wait mode, letting go of the socket; childproof
// judges the tree after that last exec, so every one of 50 launches, with
// a comm selector and without, is verified on the forked worker, and a
// later verify agrees.
func TestHaproxyMasterWorker(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/sbin/haproxy"); err != nil {
		t.Skip("/usr/sbin/haproxy is not installed here (Debian package haproxy; .ci/run installs it)")
	}
	var s server
	for _, x := range servers() {
		if x.name == "haproxy" {
			s = x
		}
	}
	for i := range 50 {
		withSelector := i%2 == 0
		dir, env, port := setupServer(t, s, withSelector)
		env = append(env, "CHILDPROOF_STATE_DIR="+filepath.Join(dir, ".state"))
		out, errOut, code := cli(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
		var r runReport
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || !r.Verified || r.Worker == nil {
			t.Errorf("launch %d (selector %t): exit %d\n%s%s", i, withSelector, code, out, errOut)
			cli(t, dir, env, "stop", s.name)
			continue
		}
		if !ownsPort(t, r.Worker.Pid, port) {
			t.Errorf("launch %d: the worker (pid %d) does not hold port %d", i, r.Worker.Pid, port)
		}
		if out, errOut, code := cli(t, dir, env, "verify", "childproof.hcl"); code != 0 {
			t.Errorf("launch %d: verify after run: exit %d\n%s%s", i, code, out, errOut)
		}
		tree := pinTree(t, r.Worker.Pid, 1)
		if out, errOut, code := cli(t, dir, env, "stop", s.name); code != 0 {
			t.Errorf("launch %d: stop: exit %d\n%s%s", i, code, out, errOut)
		}
		tree.wait(t, "stop")
	}
}

// trainPy is a two-rank CPU job: each rank refuses to start without
// APP_TOKEN, joins the gloo group and waits.
const trainPy = `import os, time
if not os.environ.get("APP_TOKEN"):
    raise SystemExit("APP_TOKEN missing")
import torch.distributed as dist
dist.init_process_group("gloo")
print("rank", dist.get_rank(), "of", dist.get_world_size(), "up", flush=True)
while True:
    time.sleep(1)
`

// torchrunReport is what TestTorchrun reads of run's and verify's JSON.
type torchrunReport struct {
	runReport
	Workers []struct {
		Pid int        `json:"pid"`
		Env []envEntry `json:"env"`
	} `json:"workers"`
	Delta *struct {
		Unexpected []struct{ Name string } `json:"unexpected"`
		Volatile   []string                `json:"volatile"`
		Ranks      int                     `json:"ranks"`
	} `json:"delta"`
}

// TestTorchrun: torchrun (Debian's python3-torch, CPU gloo) with two ranks
// below the agent, all three python3: worker { comm = "python3", count = 2
// } verifies on both ranks (the agent holds the rendezvous port, on [::]),
// relaunch --set proves the delta on both (TORCHELASTIC_ERROR_FILE and the
// run id are new each launch: volatile); after a SIGKILL of the relaunched
// agent (its ranks live on) a new run leaves no rank of the old launch, and
// stop leaves no rank of the new one. Three torchrun starts, each of which
// imports torch three times (the agent and both ranks).
func TestTorchrun(t *testing.T) {
	// Not parallel: the torchrun tests run first, one at a time (see
	// doc.go).
	needTorch(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	port := launchertest.FreePort(t)
	os.WriteFile(filepath.Join(dir, "train.py"), []byte(trainPy), 0o644)
	spec := fmt.Sprintf(`launch "torchrun" {
  command = ["/usr/bin/python3", "-m", "torch.distributed.run", "--nproc_per_node=2",
             "--master_addr=127.0.0.1", "--master_port=%d", "--redirects=1", "--tee=1", "train.py"]
  env = {
    APP_TOKEN = env("APP_TOKEN")
  }
  require  = ["APP_TOKEN"]
  on_stale = "replace"
  worker {
    comm  = "python3"
    count = 2
  }
  port "rendezvous" {
    number  = %d
    address = "::"
    allow_all_interfaces = true
  }
  ready {
    timeout = "120s"
  }
}
`, port, port)
	os.WriteFile(filepath.Join(dir, "childproof.hcl"), []byte(spec), 0o644)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "APP_TOKEN=" + canary, "NO_COLOR=1",
		"CHILDPROOF_STATE_DIR=" + filepath.Join(dir, ".state")}
	t.Cleanup(func() { cli(t, dir, env, "stop", "torchrun") })

	run := func(args ...string) torchrunReport {
		t.Helper()
		out, errOut, code := cli(t, dir, env, args...)
		var r torchrunReport
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || !r.Verified || r.Worker == nil {
			log, _ := os.ReadFile(filepath.Join(dir, ".state", "logs", "torchrun.log"))
			t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s\nlog:\n%s", args, code, out, errOut, log)
		}
		return r
	}
	ranksOK := func(what string, r torchrunReport, names ...string) []int {
		t.Helper()
		if len(r.Workers) != 2 {
			t.Fatalf("%s: %d workers, want 2: %+v", what, len(r.Workers), r.Workers)
		}
		var pids []int
		for i, w := range r.Workers {
			pids = append(pids, w.Pid)
			for _, n := range names {
				if !slices.ContainsFunc(w.Env, func(e envEntry) bool { return e.Name == n && e.Present && e.Matches }) {
					t.Errorf("%s: worker %d (pid %d): %s not verified: %+v", what, i+1, w.Pid, n, w.Env)
				}
			}
			// A rank, not the agent: a child of the launched process.
			var fs proc.FS
			if s, err := fs.Stat(w.Pid); err != nil || s.PPid == w.Pid {
				t.Errorf("%s: worker pid %d: %v", what, w.Pid, err)
			}
		}
		return pids
	}
	r := run("run", "--detach", "--format", "json", "childproof.hcl")
	ranks := ranksOK("run", r, "APP_TOKEN")
	if r.Port == nil || !r.Port.Owned || slices.Contains(ranks, r.Port.OwnerPid) {
		t.Errorf("port: %+v, want owned by the agent, not a rank %v", r.Port, ranks)
	}
	ranksOK("verify", run("verify", "--format", "json", "childproof.hcl"), "APP_TOKEN")

	old := pinTree(t, ranks[0], 1)
	rr := run("relaunch", "torchrun", "--set", "MY_FLAG=1", "--format", "json")
	old.wait(t, "relaunch")
	newRanks := ranksOK("relaunch", rr, "APP_TOKEN", "MY_FLAG")
	if rr.Delta == nil || rr.Delta.Ranks != 2 || len(rr.Delta.Unexpected) != 0 || !slices.Contains(rr.Delta.Volatile, "TORCHELASTIC_ERROR_FILE") {
		t.Errorf("relaunch delta: %+v", rr.Delta)
	}
	if slices.Equal(newRanks, ranks) {
		t.Errorf("relaunch: the same ranks %v", ranks)
	}

	// SIGKILL of the agent: its ranks live on; a new run (on_stale =
	// "replace") stops them before it starts, and leaves none.
	orphans := pinTree(t, newRanks[0], 1)
	var fs proc.FS
	st, err := fs.Stat(newRanks[0])
	if err != nil {
		t.Fatal(err)
	}
	afd, err := unix.PidfdOpen(st.PPid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(afd)
	if err := unix.PidfdSendSignal(afd, unix.SIGKILL, nil, 0); err != nil {
		t.Fatal(err)
	}
	for !pidfd.Exited(afd) {
		time.Sleep(10 * time.Millisecond)
	}
	r = run("run", "--detach", "--format", "json", "childproof.hcl")
	orphans.wait(t, "a run after its agent was killed")
	ranks = ranksOK("run after the agent was killed", r, "APP_TOKEN")

	// stop: every rank and the agent gone.
	all := pinTree(t, ranks[0], 1)
	if out, errOut, code := cli(t, dir, env, "stop", "torchrun"); code != 0 {
		t.Errorf("stop: exit %d\n%s%s", code, out, errOut)
	}
	all.wait(t, "stop")
}

// TestTorchrunWithoutCount: the same job with worker { comm = "python3" }
// and no count: the agent is verified (it holds the port), and verify says
// that the selector matches two processes below it equally (a note naming
// count = 2) instead of staying silent about the unverified ranks.
func TestTorchrunWithoutCount(t *testing.T) {
	// Not parallel: the torchrun tests run first, one at a time (see
	// doc.go).
	needTorch(t)
	dir := t.TempDir()
	port := launchertest.FreePort(t)
	os.WriteFile(filepath.Join(dir, "train.py"), []byte(trainPy), 0o644)
	os.WriteFile(filepath.Join(dir, "childproof.hcl"), []byte(fmt.Sprintf(`launch "torchrun-one" {
  command = ["/usr/bin/python3", "-m", "torch.distributed.run", "--nproc_per_node=2",
             "--master_addr=127.0.0.1", "--master_port=%d", "--redirects=1", "--tee=1", "train.py"]
  env = {
    APP_TOKEN = env("APP_TOKEN")
  }
  worker {
    comm = "python3"
  }
  port "rendezvous" {
    number  = %d
    address = "::"
    allow_all_interfaces = true
  }
  ready {
    timeout = "120s"
  }
}
`, port, port)), 0o644)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "APP_TOKEN=" + canary, "NO_COLOR=1",
		"CHILDPROOF_STATE_DIR=" + filepath.Join(dir, ".state")}
	t.Cleanup(func() { cli(t, dir, env, "stop", "torchrun-one") })
	if out, errOut, code := cli(t, dir, env, "run", "--detach", "childproof.hcl"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, errOut, code := cli(t, dir, env, "verify", "childproof.hcl")
		if code != 0 {
			t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
		}
		if strings.Contains(out, `note:    comm "python3" also matches 2 processes below the worker`) && strings.Contains(out, "set worker { count = 2 }") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("verify never noted the ranks:\n%s", out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// needTorch skips a test where Debian's python3 cannot run a gloo job.
func needTorch(t *testing.T) {
	t.Helper()
	if err := torchProbe(); err != nil {
		t.Skipf("/usr/bin/python3 cannot import torch with gloo (Debian package python3-torch; .ci/run installs it): %v", err)
	}
}

// torchProbe imports torch once for the three torchrun tests (an import
// takes seconds of CPU).
var torchProbe = sync.OnceValue(func() error {
	if out, err := exec.Command("/usr/bin/python3", "-c", "import torch.distributed as d; assert d.is_gloo_available()").CombinedOutput(); err != nil {
		return fmt.Errorf("%w %s", err, out)
	}
	return nil
})

// nginxConf is an nginx.conf for the tests: daemon on or off, the user
// line ("" when not root), the error log, every path in {{DIR}} and a
// server on 127.0.0.1:{{PORT}} that answers 200.
func nginxConf(daemon, user, errorLog string) string {
	return "daemon " + daemon + `;
master_process on;
worker_processes 2;
` + user + `
pid {{DIR}}/nginx.pid;
error_log ` + errorLog + `;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path {{DIR}}/body;
  proxy_temp_path {{DIR}}/proxy;
  fastcgi_temp_path {{DIR}}/fastcgi;
  uwsgi_temp_path {{DIR}}/uwsgi;
  scgi_temp_path {{DIR}}/scgi;
  server {
    listen 127.0.0.1:{{PORT}};
    location / { return 200 "ok\n"; }
  }
}
`
}

// titled reports whether redis-server pid has written its title over its
// argv (and so over its environment block): its command line is no longer
// the argv it was started with.
func titled(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && len(b) > 0 && !bytes.Contains(b, []byte("\x00--port\x00"))
}
