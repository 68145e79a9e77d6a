package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/childproof/childproof/internal/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// Options tune Start.
type Options struct {
	// StateDir is the state directory; "" means DefaultStateDir. State,
	// when set, is used instead.
	StateDir string
	State    *State
	// Detach leaves the tree running when Start returns, in a session of
	// its own and without the parent-death signal; the launch lock is
	// released. Otherwise the caller supervises (Wait, Stop).
	Detach bool
	// Subreaper makes the calling process a child subreaper so that
	// double-forked descendants stay in the tree (the CLI sets it).
	Subreaper bool
	// Set are extra overrides (run --set), applied after the spec's env.
	Set map[string]string
	// LookupEnv answers the caller's environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ lists the caller's environment for inherit patterns; nil
	// means os.Environ.
	Environ func() []string
	// ShowValues puts values into reports (never into records or logs).
	ShowValues bool
	// NoCgroup disables the per-launch cgroup even where it would work.
	NoCgroup bool
	// Proc is the /proc reader; the zero value reads /proc.
	Proc proc.FS
	// SpecHash is recorded with the launch (schema.File.Hash).
	SpecHash string
}

// Launch is a started and verified tree.
type Launch struct {
	// Spec is the launch spec it was started from.
	Spec *schema.Launch
	// Report is the verification report of the start.
	Report *verify.Report
	// Record is what was written to the state dir.
	Record *Record
	// Env is the resolved environment (values: never print them).
	Env *Env
	// State is the state dir.
	State *State

	opts Options
	p    proc.FS
	lock *Lock
	cmd  *exec.Cmd
	// pending is set while the provisional record stands in the state dir.
	pending bool
	pidfd   int
	wfd     int // the worker's pidfd once verified, else -1
	root    verify.Fingerprint
	worker  verify.Fingerprint
	pgid    int
	cgroup  string
	log     string

	done     chan struct{}
	exitCode int
	stopOnce sync.Once
	mu       sync.Mutex
	finished bool
}

// Start resolves the environment, preflights the ports, launches the tree
// without rc files, finds the worker, verifies on it and records the
// launch. On failure everything it started is stopped and the error is an
// *Error whose Code is the contract's exit code and whose Report holds the
// evidence.
func Start(ctx context.Context, l *schema.Launch, opts Options) (*Launch, error) {
	if l == nil || l.Name == "" {
		return nil, errorf(CodeUsage, "usage", "launch has no name")
	}
	if (len(l.Command) == 0) == (len(l.Dispatch) == 0) {
		return nil, errorf(CodeUsage, "usage", "launch %q: exactly one of command and dispatch must be set", l.Name)
	}
	st := opts.State
	if st == nil {
		var err error
		if st, err = OpenState(opts.StateDir); err != nil {
			return nil, &Error{Code: CodeUsage, Kind: "state", Msg: "state dir", Err: err}
		}
	}
	lock, err := st.Lock(l.Name)
	if err != nil {
		return nil, err
	}
	env, err := ResolveEnvFrom(l, opts.Set, opts.LookupEnv, opts.Environ)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	if opts.Subreaper {
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	v := &verify.Verifier{Proc: opts.Proc, State: st, ShowValues: opts.ShowValues}
	if err := preflight(ctx, v, st, l); err != nil {
		lock.Unlock()
		return nil, err
	}
	// The record file as it was: a failed launch puts it back.
	prevRecord, err := os.ReadFile(st.recordPath(l.Name))
	if err != nil {
		prevRecord = nil
	}
	var last *Error
	for attempt := 1; attempt <= l.EffectiveAttempts(); attempt++ {
		if attempt > 1 {
			// A newcomer that took the port gets a moment to let go of it
			// (a port probe, a short-lived listener); one that still
			// holds it then is no race: exit 4.
			if err := preflightRetry(ctx, v, st, l); err != nil {
				lock.Unlock()
				return nil, err
			}
		}
		la := &Launch{Spec: l, Env: env, State: st, opts: opts, p: opts.Proc, lock: lock, pidfd: -1, wfd: -1, done: make(chan struct{})}
		err := la.launch(ctx, v, attempt)
		if err == nil {
			if opts.Detach {
				lock.Unlock()
				la.lock = nil
			}
			return la, nil
		}
		la.abort()
		la.restoreRecord(prevRecord)
		var e *Error
		if !errors.As(err, &e) {
			lock.Unlock()
			return nil, err
		}
		if e.Report != nil {
			// A failed launch is never verified, whatever passed before
			// the failure (the worker killed while readiness was probed).
			e.Report.Attempts, e.Report.Verified = attempt, false
		}
		last = e
		if !e.race() || ctx.Err() != nil {
			break
		}
	}
	lock.Unlock()
	return nil, last
}

// race reports whether a failure is one that attempts retry: the port was
// grabbed meanwhile, or the worker never appeared (never a wrong environment).
func (e *Error) race() bool { return e.Retry }

// raceGrace bounds how long a retry waits for a newcomer on a declared
// port to leave before the launch is exit 4.
const raceGrace = time.Second

// preflightRetry is the preflight of a retry: while a foreign holder is
// on a port, it polls (10 ms) for up to raceGrace (at most the ready
// timeout), then fails as preflight does.
func preflightRetry(ctx context.Context, v *verify.Verifier, st *State, l *schema.Launch) error {
	end := time.Now().Add(min(raceGrace, l.ReadyTimeout()))
	for {
		err := preflight(ctx, v, st, l)
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Code != CodeForeign || !time.Now().Before(end) || ctx.Err() != nil {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// preflight fails with exit 4 when a declared port is held by anything but
// our own recorded previous instance, which it stops when on_stale = replace.
func preflight(ctx context.Context, v *verify.Verifier, st *State, l *schema.Launch) error {
	for _, pt := range l.Ports {
		hs, err := verify.Holders(v.Proc, pt.Number, nil)
		if err != nil {
			return &Error{Code: CodeUsage, Kind: "usage", Msg: fmt.Sprintf("port %d: socket table", pt.Number), Err: err}
		}
		for _, h := range hs {
			rec, _ := st.Load(l.Name)
			if rec != nil && rec.Stopped == nil && slices.Contains(h.Pids, rec.Worker.Pid) && rec.Worker.Check(v.Proc) == verify.Alive {
				if l.OnStale == "replace" {
					if _, err := StopRecord(ctx, v.Proc, st, rec, 10*time.Second); err != nil {
						return err
					}
					continue
				}
				r := verify.NewReport(l.Name)
				r.Add(verify.KindPortForeign, "port %d is held by our own previous launch of %q (pid %d) and on_stale is %q: %s", pt.Number, l.Name, rec.Worker.Pid, "fail", h.Census(v.Proc))
				r.ExitCode = CodeForeign
				return &Error{Code: CodeForeign, Kind: verify.KindPortForeign, Report: r,
					Msg:  fmt.Sprintf("port %d is held by the previous launch of %q (pid %d)", pt.Number, l.Name, rec.Worker.Pid),
					Hint: "stop it with 'childproof stop " + l.Name + "', or set on_stale = \"replace\""}
			}
			r := verify.NewReport(l.Name)
			r.Add(verify.KindPortForeign, "%s", h.Census(v.Proc))
			r.ExitCode = CodeForeign
			return &Error{Code: CodeForeign, Kind: verify.KindPortForeign, Report: r,
				Msg:  fmt.Sprintf("port %d is held by a process childproof did not start: %s", pt.Number, h.Census(v.Proc)),
				Hint: "childproof never signals a process it did not start; stop that process yourself or pick another port"}
		}
	}
	return nil
}

// argv returns the argv to exec and its resolved program path.
func (la *Launch) argv() ([]string, string, error) {
	l := la.Spec
	if len(l.Dispatch) > 0 {
		bash, err := exec.LookPath("bash")
		if err != nil {
			bash = "/bin/bash"
		}
		script := l.Dispatch[0]
		argv := append([]string{"bash", "--noprofile", "--norc", script}, l.Dispatch[1:]...)
		return argv, bash, nil
	}
	prog := l.Command[0]
	if !strings.Contains(prog, "/") {
		path := la.Env.Vars["PATH"]
		found := ""
		for _, d := range filepath.SplitList(path) {
			if d == "" {
				d = "."
			}
			c := filepath.Join(d, prog)
			if !filepath.IsAbs(c) {
				c = filepath.Join(la.dir(), c)
			}
			if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				found = c
				break
			}
		}
		if found == "" {
			if p, err := exec.LookPath(prog); err == nil {
				found = p
			}
		}
		if found == "" {
			return nil, "", fmt.Errorf("%s: not found in PATH", prog)
		}
		return l.Command, found, nil
	}
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(la.dir(), prog)
	}
	return l.Command, prog, nil
}

func (la *Launch) dir() string {
	if la.Spec.Dir != "" {
		return la.Spec.Dir
	}
	if la.Spec.SpecPath != "" {
		return filepath.Dir(la.Spec.SpecPath)
	}
	d, _ := os.Getwd()
	return d
}

// exitedError is the exit-5 failure: the worker or root exited before ready.
func (la *Launch) exitedError(r *verify.Report, what string) *Error {
	r.Tail = tail(la.log, 10)
	r.Add(verify.KindExited, "%s", what)
	r.ExitCode = CodeExited
	r.Ready = false
	msg := what
	if len(r.Tail) > 0 {
		msg += "; last lines it printed:\n  | " + strings.Join(r.Tail, "\n  | ")
	}
	return &Error{Code: CodeExited, Kind: verify.KindExited, Msg: msg, Report: r, Hint: "its whole output is in " + la.log}
}

// launch runs one attempt: start the tree, find the worker, verify.
func (la *Launch) launch(ctx context.Context, v *verify.Verifier, attempt int) error {
	l := la.Spec
	r := verify.NewReport(l.Name)
	r.Attempts = attempt
	la.log = la.State.LogPath(l.Name)
	r.Log = la.log
	if _, err := os.Stat(la.log); err == nil {
		os.Rename(la.log, la.log+".1")
	}
	logf, err := os.OpenFile(la.log, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return &Error{Code: CodeUsage, Kind: "state", Msg: "log", Err: err}
	}
	defer logf.Close()
	argv, prog, err := la.argv()
	if err != nil {
		return la.exitedError(r, fmt.Sprintf("the worker never appeared: %v", err))
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	cmd := &exec.Cmd{Path: prog, Args: argv, Env: la.Env.List(), Dir: la.dir(), Stdin: devnull, Stdout: logf, Stderr: logf}
	sys := &syscall.SysProcAttr{PidFD: &la.pidfd}
	if la.opts.Detach {
		sys.Setsid = true
	} else {
		sys.Setpgid = true
		sys.Pdeathsig = syscall.SIGKILL
	}
	var cgf *os.File
	if !la.opts.NoCgroup {
		la.cgroup, cgf = newCgroup(l.Name)
		if cgf != nil {
			sys.UseCgroupFD = true
			sys.CgroupFD = int(cgf.Fd())
		}
	}
	cmd.SysProcAttr = sys
	if !la.opts.Detach {
		// Pdeathsig fires when the forking thread exits: keep it alive.
		runtime_LockOSThread()
		defer runtime_UnlockOSThread()
	}
	err = cmd.Start()
	if err != nil && cgf != nil {
		cgf.Close()
		removeCgroup(la.cgroup)
		la.cgroup, cgf = "", nil
		sys.UseCgroupFD, sys.CgroupFD = false, 0
		cmd = &exec.Cmd{Path: prog, Args: argv, Env: la.Env.List(), Dir: la.dir(), Stdin: devnull, Stdout: logf, Stderr: logf, SysProcAttr: sys}
		err = cmd.Start()
	}
	if cgf != nil {
		cgf.Close()
	}
	if err != nil {
		return la.exitedError(r, fmt.Sprintf("the worker never appeared: %v", err))
	}
	la.cmd = cmd
	la.pgid = cmd.Process.Pid
	go func() {
		cmd.Wait()
		la.exitCode = exitCodeOf(cmd.ProcessState)
		close(la.done)
	}()
	if fp, err := verify.TakeFingerprint(la.p, cmd.Process.Pid); err == nil {
		la.root = fp
	} else {
		la.root = verify.Fingerprint{Pid: cmd.Process.Pid}
	}
	la.recordPending()
	return la.findAndVerify(ctx, v, r)
}

// findAndVerify polls (1 ms) until the worker is found and owns its ports,
// then verifies it and waits for readiness.
func (la *Launch) findAndVerify(ctx context.Context, v *verify.Verifier, r *verify.Report) error {
	l := la.Spec
	polling := time.Now()
	deadline := polling.Add(l.ReadyTimeout())
	root := la.cmd.Process.Pid
	var worker int
	var wfd = -1
	defer func() {
		if wfd >= 0 && la.Report == nil {
			unix.Close(wfd)
		} else if wfd >= 0 {
			la.wfd = wfd // kept: Wait watches the worker through it
		}
	}()
	// seenForeign is the last listener on a declared port held outside the
	// tree while this attempt waited for its worker.
	var seenForeign *verify.Holder
	for {
		if err := ctx.Err(); err != nil {
			r.Add(verify.KindNotReady, "interrupted: %v", err)
			r.ExitCode = CodeExited
			return &Error{Code: CodeExited, Kind: verify.KindNotReady, Msg: "interrupted before the worker was ready", Report: r, Err: err}
		}
		tree := la.tree()
		rootExited := la.exited()
		if worker != 0 && wfd >= 0 && proc.PidfdExited(wfd) {
			if seenForeign != nil {
				// A stranger held the port while our worker tried to bind:
				// a lost race, even if the stranger has left by now.
				return la.raceError(r, seenForeign)
			}
			return la.exitedError(r, la.exitWhat(worker))
		}
		if worker == 0 {
			worker = la.pickWorker(tree)
			if worker != 0 {
				fp, err := verify.TakeFingerprint(la.p, worker)
				if err != nil {
					worker = 0
				} else if fd, live, _ := fp.Open(la.p); live == verify.Alive {
					la.worker, wfd = fp, fd
				} else {
					worker = 0
				}
			}
		}
		if worker == 0 && rootExited && len(tree) == 0 {
			if h := la.foreignHolder(tree); h != nil {
				return la.raceError(r, h)
			}
			if seenForeign != nil {
				return la.raceError(r, seenForeign)
			}
			return la.exitedError(r, la.exitWhat(root))
		}
		if worker != 0 {
			owned, foreign := la.portState(v, worker, tree)
			if foreign != nil {
				seenForeign = foreign
				if rootExited || proc.PidfdExited(wfd) {
					return la.raceError(r, foreign)
				}
			}
			if owned {
				return la.verifyAndReady(ctx, v, r, worker, wfd, deadline)
			}
		}
		if time.Now().After(deadline) {
			if h := la.foreignHolder(tree); h != nil {
				return la.raceError(r, h)
			}
			if worker == 0 {
				what := fmt.Sprintf("the worker never appeared within %s", l.ReadyTimeout())
				switch {
				case l.Worker.Comm != "":
					what += fmt.Sprintf(": no process with comm %q in the launched tree", l.Worker.Comm)
				case l.Worker.Exe != "":
					what += fmt.Sprintf(": no process with exe %q in the launched tree", l.Worker.Exe)
				case len(l.Ports) > 0:
					what += fmt.Sprintf(": nothing in the launched tree listens on port %d", l.Ports[0].Number)
				case len(l.Dispatch) > 0:
					what += ": the dispatch script did not exec a worker (declare worker { comm } or a port)"
				}
				e := la.exitedError(r, what)
				e.Retry = true
				return e
			}
			r.Add(verify.KindNotReady, "the worker (pid %d) did not listen on its ports within %s", worker, l.ReadyTimeout())
			// A listener held by someone else is the real story.
			v.CheckPorts(r, verify.Check{Ports: l.Ports}, worker, tree)
			r.ExitCode = r.Code()
			if r.ExitCode == CodeOK {
				r.ExitCode = CodeExited
			}
			r.Tail = tail(la.log, 10)
			return &Error{Code: r.ExitCode, Kind: verify.KindNotReady, Report: r, Msg: r.Problems[0].Message}
		}
		pollPause(time.Since(polling))
	}
}

// pollPause waits between two looks for the worker and its listener:
// 200 µs for the first 50 ms, when a server that binds at once shows up,
// then 1 ms so that a slow starter does not cost a fifth of a core.
// unix.Nanosleep, because time.Sleep never returns in under ~1 ms.
func pollPause(waited time.Duration) {
	ns := int64(time.Millisecond)
	if waited < 50*time.Millisecond {
		ns = int64(200 * time.Microsecond)
	}
	unix.Nanosleep(&unix.Timespec{Nsec: ns}, nil)
}

// probePause returns the pauses between readiness probes. A TCP connect
// to a socket the worker is already known to own costs the server nothing
// (the kernel completes it from the backlog): 1 ms. An HTTP probe is a
// request the server handles and logs, and a model server may answer 503
// for minutes: 10 ms, doubling up to 1 s (a server busy for 3 s gets
// about a dozen probes).
func probePause(http bool) func() time.Duration {
	if !http {
		return func() time.Duration { return time.Millisecond }
	}
	next := 10 * time.Millisecond
	return func() time.Duration {
		d := next
		next = min(2*next, time.Second)
		return d
	}
}

// foreignHolder returns a listener on a declared port that no member of
// tree holds, if there is one.
func (la *Launch) foreignHolder(tree []int) *verify.Holder {
	for _, pt := range la.Spec.Ports {
		hs, err := verify.Holders(la.p, pt.Number, tree)
		if err != nil {
			continue
		}
		for i := range hs {
			if !hs[i].InTree {
				return &hs[i]
			}
		}
	}
	return nil
}

// raceError is the failure of an attempt whose port a newcomer took
// between the preflight and our worker's bind: exit 4, retried.
func (la *Launch) raceError(r *verify.Report, h *verify.Holder) *Error {
	r.Add(verify.KindPortForeign, "%s", h.Census(la.p))
	r.ExitCode = CodeForeign
	r.Tail = tail(la.log, 10)
	return &Error{Code: CodeForeign, Kind: verify.KindPortForeign, Retry: true, Report: r,
		Msg:  fmt.Sprintf("port %d was taken by a process childproof did not start: %s", h.Listener.Port, h.Census(la.p)),
		Hint: "childproof never signals a process it did not start; stop that process yourself or pick another port"}
}

// pickWorker chooses the worker among tree once it has exec'd.
func (la *Launch) pickWorker(tree []int) int {
	l := la.Spec
	if pid, decided := verify.DeclaredWorker(la.p, tree, l.Worker.Comm, l.Worker.Exe, l.Ports); decided || pid != 0 {
		return pid
	}
	if len(l.Ports) > 0 {
		return 0 // wait for the listener
	}
	if len(l.Dispatch) > 0 {
		// The script must exec the worker: wait until bash is gone from the root.
		if c, _ := la.p.Comm(la.cmd.Process.Pid); c == "bash" {
			return 0
		}
	}
	if slices.Contains(tree, la.cmd.Process.Pid) {
		return la.cmd.Process.Pid
	}
	return 0
}

// portState reports whether the worker holds a listener on every declared
// port, and a foreign holder of one if there is one.
func (la *Launch) portState(v *verify.Verifier, worker int, tree []int) (bool, *verify.Holder) {
	owned := true
	var foreign *verify.Holder
	for _, pt := range la.Spec.Ports {
		hs, err := verify.Holders(la.p, pt.Number, tree)
		if err != nil {
			return false, nil
		}
		has := false
		for i, h := range hs {
			if slices.Contains(h.Pids, worker) {
				has = true
			} else if !h.InTree && foreign == nil {
				foreign = &hs[i]
			} else if h.InTree {
				has = true // another member holds it: verification says so
			}
		}
		if !has {
			owned = false
		}
	}
	return owned, foreign
}

func (la *Launch) verifyAndReady(ctx context.Context, v *verify.Verifier, r *verify.Report, worker, wfd int, deadline time.Time) error {
	l := la.Spec
	c := verify.CheckFromSpec(l, la.Env.Expect())
	c.Root = la.cmd.Process.Pid
	c.Worker = worker
	c.Tree = la.tree()
	c.NoReady = true
	vr := v.Verify(ctx, c)
	vr.Attempts, vr.Log = r.Attempts, r.Log
	*r = *vr
	r.Ready = false
	if len(r.Problems) > 0 {
		r.Verified = false
		r.ExitCode = r.Code()
		return &Error{Code: r.ExitCode, Kind: r.Problems[0].Kind, Report: r, Msg: "verification failed on the worker: " + r.Problems[0].Message, Hint: hintFor(r)}
	}
	// Readiness: the socket table already says the worker owns the port,
	// so a connect cannot be answered by anyone else (nor by itself).
	var lastErr error
	pause := probePause(l.Ready.HTTP != "")
	for len(l.Ports) > 0 {
		if proc.PidfdExited(wfd) {
			return la.exitedError(r, la.exitWhat(worker))
		}
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		lastErr = verify.ProbeAll(pctx, c, 500*time.Millisecond)
		cancel()
		if lastErr == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			r.Add(verify.KindNotReady, "not ready within %s: %v", l.ReadyTimeout(), lastErr)
			r.ExitCode = CodeExited
			r.Tail = tail(la.log, 10)
			return &Error{Code: CodeExited, Kind: verify.KindNotReady, Report: r, Msg: r.Problems[len(r.Problems)-1].Message}
		}
		// Wait for the next probe, waking at once if the worker exits.
		d := min(pause(), time.Until(deadline))
		unix.Poll([]unix.PollFd{{Fd: int32(wfd), Events: unix.POLLIN}}, max(int(d/time.Millisecond), 1))
	}
	// The answer is no evidence by itself: the owner must still be the worker.
	r2 := verify.NewReport("")
	if len(l.Ports) > 0 && !v.CheckPorts(r2, c, worker, la.tree()) || len(r2.Problems) > 0 {
		r.Problems = append(r.Problems, r2.Problems...)
		r.ExitCode = r.Code()
		return &Error{Code: r.ExitCode, Kind: r.Problems[0].Kind, Report: r, Msg: "after readiness: " + r.Problems[0].Message}
	}
	if proc.PidfdExited(wfd) {
		return la.exitedError(r, la.exitWhat(worker))
	}
	r.Ready, r.Verified, r.ExitCode = true, true, CodeOK
	la.Report = r
	return la.record(worker)
}

// recordPending writes the provisional record (Record.Pending) once the
// tree exists, so that a childproof killed mid-launch — whose detached
// tree lives on — leaves a record that ps reports and stop acts on.
func (la *Launch) recordPending() {
	// The root may still exec (a dispatch script, sh -c … exec): without
	// its exe the fingerprint is pid, start time, uid and pidfs inode,
	// which exec keeps.
	root := la.root
	root.Exe = ""
	rec := &Record{
		Name: la.Spec.Name, SpecPath: la.Spec.SpecPath, SpecHash: la.opts.SpecHash, Argv: la.cmd.Args, Dir: la.dir(), Started: time.Now().UTC(),
		Detached: la.opts.Detach, Root: root, Worker: root, Pgid: la.pgid, Cgroup: la.cgroup,
		Env: map[string]string{}, WorkerEnv: map[string]string{}, Log: la.log, Pending: true,
	}
	if !la.opts.Detach {
		rec.Supervisor = os.Getpid()
	}
	for _, pt := range la.Spec.Ports {
		rec.Ports = append(rec.Ports, RecordPort{Number: pt.Number, Address: pt.PortAddress()})
	}
	if la.State.savePending(rec) == nil {
		la.pending = true
	}
}

// restoreRecord puts back the record file as it was before a failed
// launch wrote its provisional record (prev nil: there was none).
func (la *Launch) restoreRecord(prev []byte) {
	if !la.pending {
		return
	}
	path := la.State.recordPath(la.Spec.Name)
	if prev == nil {
		os.Remove(path)
	} else {
		writeAtomic(path, prev)
	}
	la.pending = false
}

func (la *Launch) record(worker int) error {
	l := la.Spec
	rec := &Record{
		Name: l.Name, SpecPath: l.SpecPath, SpecHash: la.opts.SpecHash, Argv: la.cmd.Args, Dir: la.dir(), Started: time.Now().UTC(),
		Detached: la.opts.Detach, Root: la.root, Worker: la.worker, Pgid: la.pgid, Cgroup: la.cgroup,
		Env: map[string]string{}, WorkerEnv: map[string]string{}, Log: la.log,
	}
	if !la.opts.Detach {
		rec.Supervisor = os.Getpid()
	}
	for _, pt := range l.Ports {
		rec.Ports = append(rec.Ports, RecordPort{Number: pt.Number, Address: pt.PortAddress()})
	}
	for _, n := range l.Protected() {
		if v, ok := la.Env.Overrides[n]; ok {
			rec.Env[n] = la.State.Digest(n, v)
		} else {
			rec.Env[n] = ""
		}
	}
	for n, v := range la.Env.Overrides {
		rec.Env[n] = la.State.Digest(n, v)
	}
	if vars, err := verify.ReadEnviron(la.p, worker); err == nil {
		for _, v := range vars {
			if _, seen := rec.WorkerEnv[v.Name]; !seen {
				rec.WorkerEnv[v.Name] = la.State.Digest(v.Name, v.Value)
			}
		}
	}
	if err := la.State.Save(rec); err != nil {
		return &Error{Code: CodeUsage, Kind: "state", Msg: "cannot record the launch", Err: err}
	}
	la.pending = false
	la.Record = rec
	return nil
}

// hintFor says where to look for the cause of a failed verification.
func hintFor(r *verify.Report) string {
	switch {
	case r.Has(verify.KindEnvMismatch, verify.KindEnvMissing):
		return "childproof set it when it started the launch: something between the launch and the worker changed it (an env file re-sourced, an rc file, a wrapper); 'childproof check' lints the dispatch chain, 'childproof explain' shows the name on each live process"
	case r.Has(verify.KindWrapper):
		return "exec the worker directly, without a login or interactive shell or an environment-resetting wrapper"
	case r.Has(verify.KindBindAddress):
		return "bind the worker to the declared address, or declare the one it uses (0.0.0.0 or :: only with allow_all_interfaces = true)"
	case r.Has(verify.KindPortNotOwned):
		return "the process that listens is not the worker: check worker { comm | exe }, or let the worker be the port's owner"
	}
	return ""
}

// exitWhat describes how pid ended, with the root's status when known.
func (la *Launch) exitWhat(pid int) string {
	select {
	case <-la.done:
	case <-time.After(200 * time.Millisecond):
	}
	who := fmt.Sprintf("the worker (pid %d)", pid)
	if pid == la.cmd.Process.Pid {
		who = fmt.Sprintf("the launched process (pid %d)", pid)
	}
	if la.exited() && la.cmd.ProcessState != nil {
		return fmt.Sprintf("%s exited before it was ready: %s", who, describeState(la.cmd.ProcessState))
	}
	return who + " exited before it was ready"
}

func describeState(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("exit status %d", ps.ExitCode())
}

func exitCodeOf(ps *os.ProcessState) int {
	if ps == nil {
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func (la *Launch) exited() bool {
	select {
	case <-la.done:
		return true
	default:
		return false
	}
}

// tree lists the launch's live processes, root first: the cgroup's members
// where there is one, else the root's descendants plus re-parented
// orphans of the same process group.
func (la *Launch) tree() []int {
	root := la.cmd.Process.Pid
	var out []int
	if la.cgroup != "" {
		if pids, err := cgroupPids(la.cgroup); err == nil {
			if slices.Contains(pids, root) {
				out = append(out, root)
			}
			for _, p := range pids {
				if p != root {
					out = append(out, p)
				}
			}
			return out
		}
	}
	if !la.exited() {
		out = append(out, root)
		out = append(out, la.p.Descendants(root)...)
	}
	kids, _ := la.p.Children(os.Getpid())
	for _, k := range kids {
		if k == root || slices.Contains(out, k) {
			continue
		}
		if s, err := la.p.Stat(k); err == nil && s.Pgrp == la.pgid {
			out = append(out, k)
			out = append(out, la.p.Descendants(k)...)
		}
	}
	return out
}

// signalTree sends sig to the tree: the process group through the root's
// pidfd, then every member through its own pidfd (members that left the
// group), never through a bare pid.
func (la *Launch) signalTree(sig unix.Signal) {
	grouped := false
	if la.pidfd >= 0 {
		grouped = unix.PidfdSendSignal(la.pidfd, sig, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP) == nil
	}
	for _, pid := range la.tree() {
		if grouped {
			// One signal each: a second SIGINT can land after a graceful
			// handler is gone and kill the worker with 128+2.
			if s, err := la.p.Stat(pid); err == nil && s.Pgrp == la.pgid {
				continue
			}
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		if la.member(pid) {
			unix.PidfdSendSignal(fd, sig, nil, 0)
		}
		unix.Close(fd)
	}
	if sig == unix.SIGKILL && la.cgroup != "" {
		cgroupKill(la.cgroup)
	}
}

// member re-checks, after the pidfd is open, that pid is still ours.
func (la *Launch) member(pid int) bool {
	if la.cgroup != "" {
		return inCgroup(la.p, pid, la.cgroup)
	}
	s, err := la.p.Stat(pid)
	return err == nil && (s.Pgrp == la.pgid || pid == la.cmd.Process.Pid || slices.Contains(la.p.Descendants(la.cmd.Process.Pid), pid))
}

// reapOrphans waits for re-parented zombies of our group.
func (la *Launch) reapOrphans() { la.reapOrphansExcept(0) }

func (la *Launch) reapOrphansExcept(keep int) {
	kids, _ := la.p.Children(os.Getpid())
	for _, k := range kids {
		if la.cmd != nil && k == la.cmd.Process.Pid || k == keep {
			continue
		}
		s, err := la.p.Stat(k)
		if err != nil || s.State != 'Z' {
			continue
		}
		if s.Pgrp == la.pgid || la.cgroup != "" && la.member(k) {
			var ws unix.WaitStatus
			unix.Wait4(k, &ws, unix.WNOHANG, nil)
		}
	}
}

// abort stops everything a failed attempt started.
func (la *Launch) abort() {
	if la.cmd == nil {
		la.closeFD()
		removeCgroup(la.cgroup)
		return
	}
	la.terminate(2 * time.Second)
}

// terminate SIGTERMs the tree, waits up to grace, SIGKILLs what is left,
// reaps and cleans up. It returns once the root is reaped and every member
// seen is gone — also members re-parented away from us (no subreaper),
// which it watches through pidfds opened before the first signal.
func (la *Launch) terminate(grace time.Duration) {
	la.mu.Lock()
	defer la.mu.Unlock()
	if la.finished {
		return
	}
	var watched []int
	for _, pid := range la.tree() {
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			if la.member(pid) {
				watched = append(watched, fd)
			} else {
				unix.Close(fd)
			}
		}
	}
	defer func() {
		for _, fd := range watched {
			unix.Close(fd)
		}
	}()
	allGone := func() bool {
		for _, fd := range watched {
			if !proc.PidfdExited(fd) {
				return false
			}
		}
		return la.exited() && len(la.liveTree()) == 0
	}
	if !allGone() {
		la.signalTree(unix.SIGTERM)
		end := time.Now().Add(grace)
		for time.Now().Before(end) {
			la.reapOrphans()
			if allGone() {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	if !allGone() {
		la.signalTree(unix.SIGKILL)
		for _, fd := range watched {
			unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
	}
	<-la.done
	for range 1000 {
		la.reapOrphans()
		if allGone() {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	la.closeFD()
	removeCgroup(la.cgroup)
	la.finished = true
}

// liveTree is tree without zombies.
func (la *Launch) liveTree() []int {
	var out []int
	for _, p := range la.tree() {
		if s, err := la.p.Stat(p); err == nil && s.State != 'Z' {
			out = append(out, p)
		}
	}
	return out
}

func (la *Launch) closeFD() {
	if la.pidfd >= 0 {
		unix.Close(la.pidfd)
		la.pidfd = -1
	}
	if la.wfd >= 0 {
		unix.Close(la.wfd)
		la.wfd = -1
	}
}

// Pid returns the worker's pid.
func (la *Launch) Pid() int { return la.worker.Pid }

// Worker returns the worker's fingerprint.
func (la *Launch) Worker() verify.Fingerprint { return la.worker }

// Root returns the launch root's fingerprint.
func (la *Launch) Root() verify.Fingerprint { return la.root }

// LogPath returns the path of the tree's log.
func (la *Launch) LogPath() string { return la.log }

// Done is closed when the launched root process has exited and been reaped.
func (la *Launch) Done() <-chan struct{} { return la.done }

// Signal forwards sig to the launch's process group (through the root's
// pidfd) and to members that left it; never to the caller.
func (la *Launch) Signal(sig syscall.Signal) {
	la.mu.Lock()
	defer la.mu.Unlock()
	if !la.finished {
		la.signalTree(unix.Signal(sig))
	}
}

// Wait waits for the launched root to exit, stops whatever it left behind,
// releases the lock, marks the record stopped and returns the exit code
// (128+signal when killed).
//
// When the worker is not the launched process (a wrapper that did not
// exec, or a worker started in the background), Wait waits for the worker:
// its status comes from wait4 when it was re-parented to the caller (a
// subreaper), else from the root.
func (la *Launch) Wait() int {
	la.mu.Lock()
	wfd, worker := la.wfd, la.worker.Pid
	la.mu.Unlock()
	if wfd < 0 || worker == la.root.Pid {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for !la.exited() {
			select {
			case <-la.done:
			case <-tick.C:
				// Double-forked orphans re-parented to a subreaper caller.
				la.mu.Lock()
				if !la.finished {
					la.reapOrphans()
				}
				la.mu.Unlock()
			}
		}
		la.finish(2 * time.Second)
		return la.exitCode
	}
	for !proc.PidfdExited(wfd) {
		fds := []unix.PollFd{{Fd: int32(wfd), Events: unix.POLLIN}}
		unix.Poll(fds, 200)
		la.mu.Lock()
		if !la.finished {
			la.reapOrphansExcept(worker)
		}
		la.mu.Unlock()
	}
	code, known := -1, false
	if s, err := la.p.Stat(worker); err == nil && s.PPid == os.Getpid() {
		var ws unix.WaitStatus
		if pid, err := unix.Wait4(worker, &ws, 0, nil); err == nil && pid == worker {
			code, known = waitCode(ws), true
		}
	}
	if !known {
		select {
		case <-la.done:
		case <-time.After(2 * time.Second):
		}
	}
	la.finish(2 * time.Second)
	if known {
		return code
	}
	return la.exitCode
}

func waitCode(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// ExitCode returns the root's exit code once Done is closed.
func (la *Launch) ExitCode() int { return la.exitCode }

// Stop SIGTERMs the tree, waits until it is gone or ctx is done (10s
// without a deadline), then SIGKILLs what is left. It returns once the
// root is reaped.
func (la *Launch) Stop(ctx context.Context) error {
	grace := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		grace = max(time.Until(d), 0)
	}
	la.finish(grace)
	return nil
}

func (la *Launch) finish(grace time.Duration) {
	la.stopOnce.Do(func() {
		la.terminate(grace)
		if la.Record != nil {
			now := time.Now().UTC()
			la.Record.Stopped = &now
			la.State.Save(la.Record)
		}
		la.lock.Unlock()
	})
}

// Verify re-verifies the running launch on its worker.
func (la *Launch) Verify(ctx context.Context) (*verify.Report, error) {
	v := &verify.Verifier{Proc: la.p, State: la.State, ShowValues: la.opts.ShowValues}
	if la.worker.Check(la.p) != verify.Alive {
		r := verify.NewReport(la.Spec.Name)
		r.Add(verify.KindExited, "the worker (pid %d) is %s", la.worker.Pid, la.worker.Check(la.p))
		r.ExitCode = CodeExited
		return r, &Error{Code: CodeExited, Kind: verify.KindExited, Report: r, Msg: r.Problems[0].Message}
	}
	c := verify.CheckFromSpec(la.Spec, la.Env.Expect())
	c.Root, c.Worker, c.Tree = la.root.Pid, la.worker.Pid, la.tree()
	r := v.Verify(ctx, c)
	if !r.Verified {
		return r, &Error{Code: r.ExitCode, Kind: r.Problems[0].Kind, Report: r, Msg: "verification failed on the worker: " + r.Problems[0].Message}
	}
	return r, nil
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	off := max(fi.Size()-8192, 0)
	f.Seek(off, io.SeekStart)
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
