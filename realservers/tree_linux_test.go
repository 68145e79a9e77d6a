package realservers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/proc"
	"golang.org/x/sys/unix"
)

// The whole launch tree under proof (issue 36) on real serving stacks: a
// vLLM-like API with a spawned engine over ZMQ, uWSGI recycling its
// workers, a node cluster respawning a crashed worker, and torchrun ranks
// with forked helpers.

// treeReport is what these tests read of run's and verify's JSON.
type treeReport struct {
	runReport
	Workers []struct {
		Role string     `json:"role"`
		Pid  int        `json:"pid"`
		Comm string     `json:"comm"`
		Env  []envEntry `json:"env"`
	} `json:"workers"`
	Members []struct {
		Pid      int      `json:"pid"`
		Comm     string   `json:"comm"`
		Evidence string   `json:"evidence"`
		Diverged []string `json:"diverged"`
	} `json:"members"`
	Notes []string `json:"notes"`
}

// stack writes files and childproof.hcl ({{PORT}}, {{DIR}} replaced in
// each) into a new directory; it returns the directory, the environment
// for cli (with a state dir of its own) and the port.
func stack(t *testing.T, files map[string]string, spec string) (string, []string, int) {
	t.Helper()
	dir := t.TempDir()
	port := launchertest.FreePort(t)
	subst := strings.NewReplacer("{{PORT}}", strconv.Itoa(port), "{{DIR}}", dir)
	files["childproof.hcl"] = spec
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(subst.Replace(body)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "APP_TOKEN=" + canary, "NO_COLOR=1",
		"CHILDPROOF_STATE_DIR=" + filepath.Join(t.TempDir(), "state")}
	return dir, env, port
}

// jsonRun runs childproof with args (which must ask for JSON) and decodes
// its report; it returns the report, the exit code and the text for a
// failure message.
func jsonRun(t *testing.T, dir string, env []string, args ...string) (treeReport, int, string) {
	t.Helper()
	out, errOut, code := cli(t, dir, env, args...)
	var r treeReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return r, code, fmt.Sprintf("%v: exit %d, not JSON (%v)\nstdout: %s\nstderr: %s", args, code, err, out, errOut)
	}
	return r, code, fmt.Sprintf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
}

// logOf is the launch's log, for failure messages.
func logOf(env []string, name string) string {
	for _, e := range env {
		if s, ok := strings.CutPrefix(e, "CHILDPROOF_STATE_DIR="); ok {
			b, _ := os.ReadFile(filepath.Join(s, "logs", name+".log"))
			return string(b)
		}
	}
	return ""
}

// get asks the server on port for path and returns the body.
func get(port int, path string) (string, error) {
	// A connection each: node's cluster hands each to the next worker.
	c := http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get("http://127.0.0.1:" + strconv.Itoa(port) + path)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// waitFor polls cond every 50 ms until it holds or limit passed; it
// reports whether it held.
func waitFor(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// children lists the live (not zombie) children of pid: the kernel's
// list of them (proc.FS.Children), not a read of every process's stat,
// which the waits that poll it every 50 ms paid for each process on the
// machine.
func children(pid int) []int {
	var fs proc.FS
	var out []int
	kids, _ := fs.Children(pid)
	for _, p := range kids {
		if s, err := fs.Stat(p); err == nil && s.PPid == pid && s.State != 'Z' {
			out = append(out, p)
		}
	}
	return out
}

// commOf is pid's comm ("" once it is gone).
func commOf(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// needPython skips t unless /usr/bin/python3 imports every module.
func needPython(t *testing.T, pkgs map[string]string) {
	t.Helper()
	for mod, pkg := range pkgs {
		if out, err := exec.Command("/usr/bin/python3", "-c", "import "+mod).CombinedOutput(); err != nil {
			t.Skipf("/usr/bin/python3 cannot import %s (Debian package %s; .ci/run installs it): %v %s", mod, pkg, err, out)
		}
	}
}

// vllmAPI is a vLLM-like API server: it binds a ZMQ socket, spawns the
// engine core (multiprocessing, spawn: fork + exec of python3), which
// names itself EngineCore_0 with setproctitle and answers over ZMQ; only
// then the API opens the HTTP port. With "change" it sets a protected
// value in its own os.environ before the spawn. GET /restart restarts
// the engine after setting the value (an engine restart in a live job).
const vllmAPI = `import http.server, multiprocessing, os, sys, threading
import zmq

def engine(addr, title):
    import setproctitle, zmq
    setproctitle.setproctitle(title)
    sock = zmq.Context().socket(zmq.PAIR)
    sock.connect(addr)
    sock.send(b"ready")
    while True:
        sock.send(sock.recv())

def start_engine(n):
    addr = "ipc://" + os.path.join(os.getcwd(), "engine-%d.ipc" % n)
    sock = zctx.socket(zmq.PAIR)
    sock.bind(addr)
    p = mp.Process(target=engine, args=(addr, "EngineCore_0"), daemon=True)
    p.start()
    if sock.recv() != b"ready":
        raise SystemExit("the engine did not start")
    return sock, p

if __name__ == "__main__":
    if not os.environ.get("APP_TOKEN"):
        raise SystemExit("APP_TOKEN missing")
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "change":
        os.environ["HF_HUB_ENABLE_HF_TRANSFER"] = "1"
    mp = multiprocessing.get_context("spawn")
    zctx = zmq.Context()
    state = {"n": 0}
    state["sock"], state["proc"] = start_engine(0)
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            with lock:
                if self.path == "/restart":
                    os.environ["HF_HUB_ENABLE_HF_TRANSFER"] = "1"
                    state["proc"].kill()
                    state["proc"].join()
                    state["sock"].close(linger=0)
                    state["n"] += 1
                    state["sock"], state["proc"] = start_engine(state["n"])
                    body = str(state["proc"].pid).encode()
                else:
                    state["sock"].send(b"ping")
                    body = state["sock"].recv()
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
`

// vllmSpec is the spec of the vLLM-like layout; roles are the worker
// blocks ("" for none).
const vllmSpec = `variable "mode" {
  default = "same"
}
launch "vllm" {
  command = ["/usr/bin/python3", "api.py", var.mode, "{{PORT}}"]
  env = {
    APP_TOKEN                 = env("APP_TOKEN")
    HF_HUB_ENABLE_HF_TRANSFER = "0"
  }
  require = ["APP_TOKEN"]
  %s
  port "http" {
    number = {{PORT}}
  }
  ready {
    http    = "/health"
    timeout = "%s"
  }
}
`

const vllmRoles = `worker "api" {
    comm  = "python3"
    ports = ["http"]
  }
  worker "engine" {
    comm = "EngineCore_0"
  }`

// TestVLLMLayout: the vLLM-like layout (issue 36). With roles, a healthy
// launch is verified on the API and the engine, well before
// ready.timeout; the in-process change before the spawn fails run with
// exit 3 naming the engine and the name, with roles and without (the
// member check); an engine restarted with the change after the launch
// was verified fails verify, and explain gives verify's verdicts.
func TestVLLMLayout(t *testing.T) {
	t.Parallel()
	needPython(t, map[string]string{"zmq": "python3-zmq", "setproctitle": "python3-setproctitle"})
	const timeout = 60 * time.Second
	for _, roles := range []bool{true, false} {
		t.Run(fmt.Sprintf("roles=%t", roles), func(t *testing.T) {
			t.Parallel()
			sel := ""
			if roles {
				sel = vllmRoles
			}
			dir, env, port := stack(t, map[string]string{"api.py": vllmAPI}, fmt.Sprintf(vllmSpec, sel, timeout))
			t.Cleanup(func() { cli(t, dir, env, "stop", "vllm") })

			// The change before the spawn: exit 3, the engine and the name.
			r, code, msg := jsonRun(t, dir, env, "run", "--detach", "--format", "json", "--var", "mode=change", "childproof.hcl")
			if code != 3 || r.Verified {
				t.Fatalf("run with the in-process change: want exit 3\n%s\nlog:\n%s", msg, logOf(env, "vllm"))
			}
			kind := "env-diverged" // a member that is no worker
			if roles {
				kind = "env-mismatch" // the engine is worker "engine"
			}
			if !slices.ContainsFunc(r.Problems, func(p struct{ Kind, Message string }) bool {
				return p.Kind == kind && strings.Contains(p.Message, "HF_HUB_ENABLE_HF_TRANSFER") &&
					(strings.Contains(p.Message, "EngineCore_0") || strings.Contains(p.Message, `worker "engine"`))
			}) {
				t.Errorf("run with the in-process change: no %s naming the engine and HF_HUB_ENABLE_HF_TRANSFER\n%s", kind, msg)
			}
			t.Logf("%+v", r.Problems)

			// Healthy: verified, quickly.
			t0 := time.Now()
			r, code, msg = jsonRun(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
			took := time.Since(t0)
			if code != 0 || !r.Verified || r.Worker == nil {
				t.Fatalf("healthy run: want verified\n%s\nlog:\n%s", msg, logOf(env, "vllm"))
			}
			t.Logf("healthy run verified in %s (ready.timeout %s)", took.Round(time.Millisecond), timeout)
			if took > timeout/2 {
				t.Errorf("healthy run took %s: it waited for ready.timeout (%s)", took, timeout)
			}
			api := r.Worker.Pid
			if !ownsPort(t, api, port) || commOf(api) != "python3" {
				t.Errorf("worker pid %d (%s) is not the API that owns port %d", api, commOf(api), port)
			}
			engines := func(r treeReport) []int {
				var out []int
				for _, w := range r.Workers {
					if w.Comm == "EngineCore_0" {
						out = append(out, w.Pid)
					}
				}
				for _, m := range r.Members {
					if m.Comm == "EngineCore_0" {
						out = append(out, m.Pid)
					}
				}
				return out
			}
			engine := engines(r)
			if len(engine) != 1 {
				t.Fatalf("healthy run: the engine is judged %d times, want once\n%s", len(engine), msg)
			}
			if roles {
				i := slices.IndexFunc(r.Workers, func(w struct {
					Role string     `json:"role"`
					Pid  int        `json:"pid"`
					Comm string     `json:"comm"`
					Env  []envEntry `json:"env"`
				}) bool {
					return w.Role == "engine"
				})
				if i < 0 || r.Workers[i].Pid != engine[0] || !slices.ContainsFunc(r.Workers[i].Env, func(e envEntry) bool {
					return e.Name == "HF_HUB_ENABLE_HF_TRANSFER" && e.Present && e.Matches
				}) {
					t.Errorf("healthy run: worker \"engine\" not verified on EngineCore_0\n%s", msg)
				}
			}
			if out, errOut, code := cli(t, dir, env, "verify", "childproof.hcl"); code != 0 || !strings.HasPrefix(out, "verified vllm") {
				t.Errorf("verify: exit %d\n%s%s", code, out, errOut)
			}
			out, errOut, code := cli(t, dir, env, "explain", "childproof.hcl", "HF_HUB_ENABLE_HF_TRANSFER")
			if code != 0 || !strings.Contains(out, "EngineCore_0") || !strings.Contains(out, "has the intended value on every process") {
				t.Errorf("explain of the healthy launch: exit %d\n%s%s", code, out, errOut)
			}

			// An engine restart with the change after the launch was
			// verified (run --detach returned, nothing traces the tree):
			// the new engine rewrites its block with setproctitle, so
			// nothing holds what its exec received. verify must not pass
			// it silently: as worker "engine" it fails (exit 3); as a
			// member it is said to be unreadable. explain agrees and never
			// says "every process".
			body, err := get(port, "/restart")
			if err != nil {
				t.Fatalf("restarting the engine: %v", err)
			}
			newEngine, _ := strconv.Atoi(body)
			if newEngine == 0 || newEngine == engine[0] || !waitFor(10*time.Second, func() bool { return commOf(newEngine) == "EngineCore_0" }) {
				t.Fatalf("the API restarted no engine: %q", body)
			}
			r, code, msg = jsonRun(t, dir, env, "verify", "--format", "json", "childproof.hcl")
			pid := strconv.Itoa(newEngine)
			if roles {
				if code != 3 || r.Verified || !slices.ContainsFunc(r.Problems, func(p struct{ Kind, Message string }) bool {
					return strings.Contains(p.Message, `worker "engine"`) || strings.Contains(p.Message, pid)
				}) {
					t.Errorf("verify after an engine restart with the change: want exit 3 naming the new engine (pid %d)\n%s", newEngine, msg)
				}
			} else if !slices.ContainsFunc(r.Notes, func(n string) bool {
				return strings.Contains(n, "pid "+pid+" (EngineCore_0)") && strings.Contains(n, "cannot be judged")
			}) && code != 3 {
				t.Errorf("verify after an engine restart with the change: the new engine (pid %d) is neither failed nor said to be unreadable\n%s", newEngine, msg)
			}
			t.Logf("verify after the restart: exit %d, problems %+v, notes %q", code, r.Problems, r.Notes)
			out, errOut, code = cli(t, dir, env, "explain", "childproof.hcl", "HF_HUB_ENABLE_HF_TRANSFER")
			if !strings.Contains(out, "pid "+pid) || strings.Contains(out, "has the intended value on every process") ||
				!strings.Contains(out, "pid "+pid+" (EngineCore_0) cannot be read") && !strings.Contains(out, "NOT the intended value") {
				t.Errorf("explain after an engine restart with the change: exit %d\n%s%s", code, out, errOut)
			}
			// stop ends the API, the new engine and the resource tracker.
			tree := pinTree(t, api, 3)
			if out, errOut, code := cli(t, dir, env, "stop", "vllm"); code != 0 {
				t.Errorf("stop: exit %d\n%s%s", code, out, errOut)
			}
			tree.wait(t, "stop")
		})
	}
}

// loop is a bounded request loop on 127.0.0.1: one request at a time, at
// most 20 a second and 10,000 in all, until stopped.
type loop struct {
	sent, answered atomic.Int64
	stop           context.CancelFunc
	done           chan struct{}
}

// requestLoop starts a loop of GET / to port; the test's cleanup ends it.
func requestLoop(t *testing.T, port int) *loop {
	ctx, stop := context.WithCancel(context.Background())
	l := &loop{stop: stop, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(time.Second / 20)
		defer tick.Stop()
		for l.sent.Load() < 10000 {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			l.sent.Add(1)
			c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond)
			if err != nil {
				continue
			}
			// One request at a time, each waited for until answered (or
			// the loop ends): a request given up on stays queued at the
			// server, and at load 40 a loop that gave up after a second
			// queued them faster than the recycled workers served them,
			// until the readiness probe's GET, behind them all, was not
			// answered within a minute (TestGunicornChurn, ci16a).
			c.SetDeadline(time.Now().Add(30 * time.Second))
			stopRead := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
			c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
			if n, _ := c.Read(make([]byte, 64)); n > 0 {
				l.answered.Add(1)
			}
			stopRead()
			c.Close()
		}
	}()
	t.Cleanup(l.end)
	return l
}

// end stops the loop and waits for it.
func (l *loop) end() { l.stop(); <-l.done }

// recycled waits until none of the processes in old is a child of
// parent any more and parent has at least n children again: every helper
// was replaced. It reports whether that happened within limit.
func recycled(parent int, old []int, n int, limit time.Duration) bool {
	return waitFor(limit, func() bool {
		now := children(parent)
		if len(now) < n {
			return false
		}
		for _, p := range now {
			if slices.Contains(old, p) {
				return false
			}
		}
		return true
	})
}

// uwsgiApp refuses to start without APP_TOKEN.
const uwsgiApp = `import os
if not os.environ.get("APP_TOKEN"):
    raise SystemExit("APP_TOKEN missing")
def application(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok\n"]
`

// TestUWSGIRecycle: uWSGI with its master and three workers recycled
// every 3 requests (--max-requests; --min-worker-lifetime 1, else uWSGI
// keeps a worker at least 60 s) under a request loop. The master (the
// exec'd uwsgi) is the worker; the recycled workers are forks of it,
// helpers. run is verified; verify keeps passing after every worker was
// replaced, twice; stop { signal = "SIGINT" } (uWSGI's shutdown signal:
// SIGTERM makes it reload, re-exec'ing the master) ends it by that signal,
// not by SIGKILL after the timeout, where the same launch without the
// block is SIGKILLed. A graceful reload (SIGHUP re-execs the master in
// its pid) is verified on the master's new image.
func TestUWSGIRecycle(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("uwsgi"); err != nil {
		t.Skip("uwsgi is not installed here (Debian packages uwsgi and uwsgi-plugin-python3; .ci/run installs them)")
	}
	if _, err := os.Stat("/usr/lib/uwsgi/plugins/python3_plugin.so"); err != nil {
		t.Skip("uWSGI's python3 plugin is not installed here (Debian package uwsgi-plugin-python3; .ci/run installs it)")
	}
	const spec = `launch "uwsgi" {
  command = ["uwsgi", "--master", "--plugin", "python3", "--http-socket", "127.0.0.1:{{PORT}}",
             "--workers", "3", "--max-requests", "3", "--min-worker-lifetime", "1",
             "--wsgi-file", "app.py", "--need-app"]
  env = {
    APP_TOKEN = env("APP_TOKEN")
  }
  require = ["APP_TOKEN"]
  worker {
    comm = "uwsgi"
  }
  port "http" {
    number = {{PORT}}
  }
  ready {
    http    = "/"
    timeout = "60s"
  }
  %s
}
`
	type stopReport struct {
		Killed, Signalled, Exited bool
		Message                   string
	}
	for _, block := range []string{"stop {\n    signal = \"SIGINT\"\n  }", ""} {
		t.Run(fmt.Sprintf("stop-block=%t", block != ""), func(t *testing.T) {
			t.Parallel()
			dir, env, port := stack(t, map[string]string{"app.py": uwsgiApp}, fmt.Sprintf(spec, block))
			stopped := false
			t.Cleanup(func() {
				if !stopped {
					cli(t, dir, env, "stop", "uwsgi")
				}
			})
			r, code, msg := jsonRun(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
			if code != 0 || !r.Verified || r.Worker == nil {
				t.Fatalf("run: want verified\n%s\nlog:\n%s", msg, logOf(env, "uwsgi"))
			}
			master := r.Worker.Pid
			if !ownsPort(t, master, port) {
				t.Errorf("the worker (pid %d) does not hold port %d", master, port)
			}
			if block != "" {
				l := requestLoop(t, port)
				for round := 1; round <= 2; round++ {
					var old []int
					if !waitFor(30*time.Second, func() bool { old = children(master); return len(old) >= 3 }) {
						t.Fatalf("round %d: the master (pid %d) has workers %v, want 3", round, master, old)
					}
					if !recycled(master, old, 3, 60*time.Second) {
						t.Fatalf("round %d: uWSGI's workers %v were not all recycled within 60s (requests sent %d, answered %d)\nlog:\n%s",
							round, old, l.sent.Load(), l.answered.Load(), logOf(env, "uwsgi"))
					}
					r, code, msg := jsonRun(t, dir, env, "verify", "--format", "json", "childproof.hcl")
					if code != 0 || !r.Verified || r.Worker == nil || r.Worker.Pid != master {
						t.Errorf("round %d: verify after the workers %v were recycled into %v: want verified on the master (pid %d)\n%s", round, old, children(master), master, msg)
					}
					t.Logf("round %d: workers %v recycled into %v, verified (requests sent %d, answered %d)", round, old, children(master), l.sent.Load(), l.answered.Load())
				}
				// A graceful reload (SIGHUP): the master execs its binary
				// again in the same pid and forks new workers; verify
				// judges it on that new image (its live environ).
				old := children(master)
				mfd, err := unix.PidfdOpen(master, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(mfd)
				if err := unix.PidfdSendSignal(mfd, unix.SIGHUP, nil, 0); err != nil {
					t.Fatal(err)
				}
				if !recycled(master, old, 3, 60*time.Second) || !waitFor(30*time.Second, func() bool {
					return strings.Contains(logOf(env, "uwsgi"), "gracefully (RE)spawned uWSGI master process")
				}) {
					t.Fatalf("uWSGI did not reload on SIGHUP\nlog:\n%s", logOf(env, "uwsgi"))
				}
				r, code, msg := jsonRun(t, dir, env, "verify", "--format", "json", "childproof.hcl")
				if code != 0 || !r.Verified || r.Worker == nil || r.Worker.Pid != master || r.EnvEvidence != "live" {
					t.Errorf("verify after the master re-exec'd (SIGHUP reload): want verified on the master (pid %d) by its live environ\n%s", master, msg)
				}
				l.end()
				// uWSGI loses a SIGINT that reaches a worker still
				// starting (its master then waits for that worker until
				// SIGKILL): stop a tree that stopped changing.
				settled(t, master, 4)
			}
			tree := pinTree(t, master, 4)
			args := []string{"stop", "--format", "json", "uwsgi"}
			if block == "" {
				args = []string{"stop", "--format", "json", "--timeout", "1s", "uwsgi"}
			}
			t0 := time.Now()
			out, errOut, code := cli(t, dir, env, args...)
			took := time.Since(t0)
			stopped = true
			var s stopReport
			if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 {
				t.Fatalf("stop: exit %d\n%s%s", code, out, errOut)
			}
			tree.wait(t, "stop")
			t.Logf("stop took %s: %s", took.Round(time.Millisecond), s.Message)
			if block != "" {
				// Ended by SIGINT: uWSGI's own shutdown ran to its end.
				if s.Killed || !s.Signalled || !strings.Contains(s.Message, "SIGINT") || !strings.Contains(logOf(env, "uwsgi"), "goodbye to uWSGI") {
					t.Errorf("stop with stop { signal = \"SIGINT\" }: want uWSGI's shutdown, not SIGKILL\n%s\nlog:\n%s", out, logOf(env, "uwsgi"))
				}
			} else if !s.Killed {
				// SIGTERM is a reload to uWSGI: it lives on until SIGKILL.
				t.Errorf("stop without a stop block: uWSGI ended on SIGTERM; the control case is void\n%s", out)
			}
		})
	}
}

// nodeCluster is a node cluster primary with three workers (each a node
// exec'd by the primary: cluster.fork spawns, it does not only fork). A
// worker asked for /crash exits; the primary forks a replacement. Asked
// for /crash-poison, the worker first tells the primary, which changes
// MODEL_REVISION in its own process.env before it forks the replacement.
const nodeCluster = `const cluster = require("cluster");
const http = require("http");
if (!process.env.APP_TOKEN) { console.error("APP_TOKEN missing"); process.exit(1); }
const port = Number(process.argv[2]);
if (cluster.isPrimary) {
  for (let i = 0; i < 3; i++) cluster.fork();
  cluster.on("message", (w, msg) => {
    if (msg === "poison") {
      process.env.MODEL_REVISION = "r2-not-the-intended-one";
      try { w.send("poisoned", () => {}); } catch (e) {}
    }
  });
  cluster.on("exit", (w, code) => {
    console.log("worker " + w.process.pid + " exited (" + code + "); respawning");
    cluster.fork();
  });
} else {
  http.createServer((req, res) => {
    if (req.url === "/poison") {
      // answered once the primary has changed its process.env
      process.once("message", () => res.end(process.pid + "\n"));
      process.send("poison");
      return;
    }
    res.end(process.pid + "\n");
    if (req.url === "/crash") {
      setImmediate(() => process.exit(1));
    } else if (req.url === "/crash-poison") {
      process.send("poison", () => process.exit(1));
    }
  }).listen(port, "127.0.0.1");
}
`

// TestNodeClusterRespawn: a node cluster primary with three workers, one
// of which crashes and is respawned by the primary. verify passes after
// the respawn and judges the replacement on its own environ (a member of
// the tree); a replacement the primary started after changing a protected
// value in its own process.env fails verify with env-diverged (exit 3)
// naming it and the name.
func TestNodeClusterRespawn(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed here (Debian package nodejs; .ci/run installs it)")
	}
	const spec = `launch "cluster" {
  command = ["node", "server.js", "{{PORT}}"]
  env = {
    APP_TOKEN      = env("APP_TOKEN")
    MODEL_REVISION = "r1"
  }
  require = ["APP_TOKEN"]
  %s
  port "http" {
    number = {{PORT}}
  }
  ready {
    http    = "/"
    timeout = "60s"
  }
}
`
	for _, sel := range []string{`worker { comm = "node" }`, ""} {
		t.Run(fmt.Sprintf("selector=%t", sel != ""), func(t *testing.T) {
			t.Parallel()
			dir, env, port := stack(t, map[string]string{"server.js": nodeCluster}, fmt.Sprintf(spec, sel))
			t.Cleanup(func() { cli(t, dir, env, "stop", "cluster") })
			r, code, msg := jsonRun(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
			if code != 0 || !r.Verified || r.Worker == nil {
				t.Fatalf("run: want verified\n%s\nlog:\n%s", msg, logOf(env, "cluster"))
			}
			primary := r.Worker.Pid
			// Every worker serves: were the only one listening to crash,
			// the primary would close the port until the others listen.
			serving := func() bool {
				ws := children(primary)
				seen := map[int]bool{}
				for range 30 {
					body, _ := get(port, "/")
					pid, _ := strconv.Atoi(strings.TrimSpace(body))
					seen[pid] = true
				}
				return len(ws) == 3 && seen[ws[0]] && seen[ws[1]] && seen[ws[2]]
			}
			if !waitFor(30*time.Second, serving) {
				t.Fatalf("the primary (pid %d) has workers %v, want 3 serving", primary, children(primary))
			}
			judged := func(r treeReport, pid int) bool {
				return slices.ContainsFunc(r.Members, func(m struct {
					Pid      int      `json:"pid"`
					Comm     string   `json:"comm"`
					Evidence string   `json:"evidence"`
					Diverged []string `json:"diverged"`
				}) bool {
					return m.Pid == pid && m.Evidence != "unreadable"
				})
			}
			// crash asks a worker to crash and returns it and its
			// replacement, once the primary has three workers again.
			crash := func(path string) (int, int) {
				t.Helper()
				before := children(primary)
				body, err := get(port, path)
				gone, _ := strconv.Atoi(strings.TrimSpace(body))
				if err != nil || !slices.Contains(before, gone) {
					t.Fatalf("GET %s: %q, %v (workers %v)", path, body, err, before)
				}
				var repl int
				if !waitFor(30*time.Second, func() bool {
					now := children(primary)
					if len(now) != 3 || slices.Contains(now, gone) {
						return false
					}
					for _, p := range now {
						if !slices.Contains(before, p) {
							repl = p
						}
					}
					// Respawned: the replacement exec'd node (cluster.fork
					// puts NODE_UNIQUE_ID in the worker's environment).
					b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", repl))
					return repl != 0 && bytes.Contains(append([]byte{0}, b...), []byte("\x00NODE_UNIQUE_ID="))
				}) {
					t.Fatalf("worker %d was not replaced: workers %v\nlog:\n%s", gone, children(primary), logOf(env, "cluster"))
				}
				return gone, repl
			}

			gone, repl := crash("/crash")
			r, code, msg = jsonRun(t, dir, env, "verify", "--format", "json", "childproof.hcl")
			if code != 0 || !r.Verified || !judged(r, repl) {
				t.Errorf("verify after worker %d was respawned as %d: want verified, the replacement judged as a member\n%s", gone, repl, msg)
			}
			t.Logf("worker %d respawned as %d: verify exit %d, members %+v", gone, repl, code, r.Members)

			gone, repl = crash("/crash-poison")
			r, code, msg = jsonRun(t, dir, env, "verify", "--format", "json", "childproof.hcl")
			if code != 3 || r.Verified || !slices.ContainsFunc(r.Problems, func(p struct{ Kind, Message string }) bool {
				return p.Kind == "env-diverged" && strings.Contains(p.Message, "MODEL_REVISION") && strings.Contains(p.Message, fmt.Sprintf("pid %d (node)", repl))
			}) {
				t.Errorf("verify after worker %d was respawned as %d with MODEL_REVISION changed: want exit 3, env-diverged naming it\n%s", gone, repl, msg)
			}
			t.Logf("poisoned respawn %d: %+v", repl, r.Problems)

			// ps still sees the launch alive on its primary; stop ends
			// the primary and every worker, replacements included.
			out, errOut, code := cli(t, dir, env, "ps", "--format", "json")
			if code != 0 || !strings.Contains(out, fmt.Sprintf(`"pid": %d,`, primary)) || strings.Contains(out, `"status": "gone"`) {
				t.Errorf("ps after the respawns: exit %d\n%s%s", code, out, errOut)
			}
			tree := pinTree(t, primary, 4)
			if out, errOut, code := cli(t, dir, env, "stop", "cluster"); code != 0 {
				t.Errorf("stop: exit %d\n%s%s", code, out, errOut)
			}
			tree.wait(t, "stop")
		})
	}
}

// TestNodeClusterForegroundRespawn: run in the foreground follows a node
// cluster whose workers are the job (worker { comm = "node", count = 3 }):
// when the worker it watches exits, the primary respawns it and run goes
// on with the replacement as its worker (ps names it, verify passes)
// instead of ending the launch; a replacement forked after the primary
// changed a protected value is reported at once (ps "diverged", verify
// exit 3). stop then ends the whole tree and run with it.
func TestNodeClusterForegroundRespawn(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed here (Debian package nodejs; .ci/run installs it)")
	}
	const spec = `launch "cluster" {
  command = ["node", "server.js", "{{PORT}}"]
  env = {
    APP_TOKEN      = env("APP_TOKEN")
    MODEL_REVISION = "r1"
  }
  require = ["APP_TOKEN"]
  worker {
    comm  = "node"
    count = 3
  }
  port "http" {
    number = {{PORT}}
  }
  ready {
    http    = "/"
    timeout = "60s"
  }
}
`
	dir, env, port := stack(t, map[string]string{"server.js": nodeCluster}, spec)
	run := exec.Command(bin, "run", "childproof.hcl")
	run.Dir, run.Env = dir, env
	// run's output is read while it runs (in a failure's message) and
	// written by exec's copying goroutines: a lockedBuffer.
	var runOut, runErr lockedBuffer
	run.Stdout, run.Stderr = &runOut, &runErr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	// ended is closed when run has exited (waitErr is then its error):
	// the body and the cleanup both wait for it.
	ended := make(chan struct{})
	var waitErr error
	go func() { waitErr = run.Wait(); close(ended) }()
	t.Cleanup(func() {
		cli(t, dir, env, "stop", "cluster")
		select {
		case <-ended:
		case <-time.After(30 * time.Second):
			run.Process.Kill()
		}
	})
	type launch struct {
		Status string `json:"status"`
		Worker struct {
			Pid int `json:"pid"`
		} `json:"worker"`
	}
	ps := func() launch {
		out, _, _ := cli(t, dir, env, "ps", "--format", "json")
		var v struct {
			Launches []launch `json:"launches"`
		}
		json.Unmarshal([]byte(out), &v)
		if len(v.Launches) != 1 {
			return launch{}
		}
		return v.Launches[0]
	}
	var worker launch
	if !waitFor(90*time.Second, func() bool { worker = ps(); return worker.Status == "alive" }) {
		t.Fatalf("the foreground run never was alive: %+v\nstdout: %s\nstderr: %s", worker, runOut.String(), runErr.String())
	}
	// crash kills the worker run watches (a process of this test's own
	// launch, by its pidfd) and returns the launch once ps names another
	// worker in the given status.
	crash := func(path, status string) launch {
		t.Helper()
		gone := worker.Worker.Pid
		if path != "" {
			// Poison the primary first: the next fork gets the change.
			for range 30 {
				if body, _ := get(port, path); strings.TrimSpace(body) != "" {
					break
				}
			}
		}
		fd, err := unix.PidfdOpen(gone, 0)
		if err != nil {
			t.Fatalf("the worker %d: %v", gone, err)
		}
		defer unix.Close(fd)
		if commOf(gone) != "node" {
			t.Fatalf("pid %d is %q, not the worker", gone, commOf(gone))
		}
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		var now launch
		if !waitFor(60*time.Second, func() bool {
			now = ps()
			return now.Worker.Pid != 0 && now.Worker.Pid != gone && now.Status == status
		}) {
			t.Fatalf("after the worker %d was killed: ps %+v, want another worker, %s\nstderr: %s", gone, now, status, runErr.String())
		}
		select {
		case <-ended:
			t.Fatalf("run ended (%v) when its worker %d was respawned\nstderr: %s", waitErr, gone, runErr.String())
		default:
		}
		return now
	}
	worker = crash("", "alive")
	if out, errOut, code := cli(t, dir, env, "verify", "childproof.hcl"); code != 0 {
		t.Errorf("verify after the respawn: exit %d\n%s%s", code, out, errOut)
	}
	worker = crash("/poison", "diverged")
	if out, errOut, code := cli(t, dir, env, "verify", "childproof.hcl"); code != 3 || !strings.Contains(out, "MODEL_REVISION") {
		t.Errorf("verify after the changed respawn: exit %d, want 3 naming MODEL_REVISION\n%s%s", code, out, errOut)
	}
	if out, errOut, code := cli(t, dir, env, "stop", "cluster"); code != 0 {
		t.Errorf("stop: exit %d\n%s%s", code, out, errOut)
	}
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatalf("run did not end after stop\nstderr: %s", runErr.String())
	}
	if n := strings.Count(runErr.String(), "is the worker now"); n != 2 {
		t.Errorf("run's stderr tells %d respawns, want 2:\n%s", n, runErr.String())
	}
	if strings.Contains(runOut.String()+runErr.String(), canary) {
		t.Error("run printed the value of APP_TOKEN")
	}
}

// trainHelpersPy is a rank that forks a helper at once (before it even
// joins the group, as a DataLoader or a tokenizer pool does at import) and
// forks a new one each time the last one ended (a DataLoader's workers
// are recycled every epoch). A helper only forks: it never execs.
const trainHelpersPy = `import os, time
if not os.environ.get("APP_TOKEN"):
    raise SystemExit("APP_TOKEN missing")

def helper():
    pid = os.fork()
    if pid == 0:
        time.sleep(1)
        os._exit(0)
    return pid

h = helper()
import torch.distributed as dist
dist.init_process_group("gloo")
print("rank", dist.get_rank(), "of", dist.get_world_size(), "up", flush=True)
open("up.%d" % dist.get_rank(), "w").close()
while True:
    os.waitpid(h, 0)
    h = helper()
`

// TestTorchrunHelpers: torchrun (Debian's python3-torch, CPU gloo) with
// four ranks, each forking a helper at once and again whenever the last
// one ended. worker { comm = "python3", count = 4 } is verified on the
// four ranks (children of the agent), never on a helper; verify keeps
// passing on the same four ranks after every rank's helper was recycled,
// twice; stop leaves none of them.
func TestTorchrunHelpers(t *testing.T) {
	// Not parallel: the torchrun tests run first, one at a time (see
	// doc.go).
	needTorch(t)
	const spec = `launch "ranks" {
  command = ["/usr/bin/python3", "-m", "torch.distributed.run", "--nproc_per_node=4",
             "--master_addr=127.0.0.1", "--master_port={{PORT}}", "--redirects=1", "--tee=1", "train.py"]
  env = {
    APP_TOKEN = env("APP_TOKEN")
    OMP_NUM_THREADS = "1"
  }
  require = ["APP_TOKEN"]
  worker {
    comm  = "python3"
    count = 4
  }
  port "rendezvous" {
    number  = {{PORT}}
    address = "::"
    allow_all_interfaces = true
  }
  ready {
    timeout = "180s"
  }
}
`
	dir, env, _ := stack(t, map[string]string{"train.py": trainHelpersPy}, spec)
	t.Cleanup(func() { cli(t, dir, env, "stop", "ranks") })
	r, code, msg := jsonRun(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
	if code != 0 || !r.Verified || r.Port == nil {
		t.Fatalf("run: want verified\n%s\nlog:\n%s", msg, logOf(env, "ranks"))
	}
	agent := r.Port.OwnerPid
	var fs proc.FS
	// ranksOf checks that a report's workers are four ranks: children of
	// the agent, each verified; it returns their pids.
	ranksOf := func(what string, r treeReport) []int {
		t.Helper()
		var pids []int
		for _, w := range r.Workers {
			pids = append(pids, w.Pid)
			if s, err := fs.Stat(w.Pid); err != nil || s.PPid != agent {
				t.Errorf("%s: worker pid %d is not a rank (a child of the agent, pid %d): %+v %v", what, w.Pid, agent, s, err)
			}
			if !slices.ContainsFunc(w.Env, func(e envEntry) bool { return e.Name == "APP_TOKEN" && e.Present && e.Matches }) {
				t.Errorf("%s: worker pid %d: APP_TOKEN not verified: %+v", what, w.Pid, w.Env)
			}
		}
		if len(pids) != 4 {
			t.Fatalf("%s: workers %v, want the 4 ranks\n%s", what, pids, msg)
		}
		return pids
	}
	ranks := ranksOf("run", r)
	slices.Sort(ranks)
	// The ranks are verified while they still import torch and meet at
	// the rendezvous (the agent owns its port from the start); the
	// helper each forked first has exited by then and stays a zombie
	// until its rank's loop reaps it. The helpers recycle once every rank
	// is up.
	if !waitFor(180*time.Second, func() bool {
		up, _ := filepath.Glob(filepath.Join(dir, "up.*"))
		return len(up) == 4
	}) {
		t.Fatalf("the four ranks were not up (past init_process_group) within 180s\nlog:\n%s", logOf(env, "ranks"))
	}
	for round := 1; round <= 2; round++ {
		// Every rank's helpers, then the wait for each rank's to be
		// replaced: the ranks recycle theirs at the same time.
		olds := map[int][]int{}
		for _, rank := range ranks {
			old := children(rank)
			if len(old) == 0 && !waitFor(30*time.Second, func() bool { old = children(rank); return len(old) > 0 }) {
				t.Fatalf("round %d: rank %d has no helper", round, rank)
			}
			olds[rank] = old
		}
		for _, rank := range ranks {
			if !recycled(rank, olds[rank], 1, 60*time.Second) {
				t.Fatalf("round %d: rank %d's helpers %v were not recycled within 60s", round, rank, olds[rank])
			}
		}
		r, code, msg = jsonRun(t, dir, env, "verify", "--format", "json", "childproof.hcl")
		if code != 0 || !r.Verified {
			t.Fatalf("round %d: verify after the helpers were recycled: want verified\n%s", round, msg)
		}
		now := ranksOf(fmt.Sprintf("round %d", round), r)
		slices.Sort(now)
		if !slices.Equal(now, ranks) {
			t.Errorf("round %d: verify judged %v, want the ranks %v", round, now, ranks)
		}
		t.Logf("round %d: helpers of ranks %v recycled; verified on the same ranks", round, ranks)
	}
	// stop ends the agent, the ranks and their helpers.
	tree := pinTree(t, agent, 5) // a helper may be between two lives
	if out, errOut, code := cli(t, dir, env, "stop", "ranks"); code != 0 {
		t.Errorf("stop: exit %d\n%s%s", code, out, errOut)
	}
	tree.wait(t, "stop")
}

// lockedBuffer is a bytes.Buffer that a child's output is copied into
// while the test reads it: safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
