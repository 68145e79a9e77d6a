package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/noinherit"
	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/exectrace"
	"github.com/childproof/childproof/launcher/launchenv"
	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/launcher/output"
	"github.com/childproof/childproof/launcher/portplaceholder"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/relay"
	"github.com/childproof/childproof/launcher/runas"
	"github.com/childproof/childproof/launcher/sigtree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/launcher/treeevents"
	"github.com/childproof/childproof/launcher/watchdog"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Start resolves the environment, preflights the ports, launches the tree
// without rc files, finds the worker, verifies on it and records the
// launch. On failure everything it started is stopped and the error is an
// *Error whose Outcome says what failed and whose Report holds the
// evidence. Secret values are masked in the report, the error and the
// record.
//
// In a test binary (the testing package's
// flags registered), zero StateDir and State and no $CHILDPROOF_STATE_DIR
// mean a state dir of the test binary's own (see testStateDir), never the
// user's.
//
// The tree inherits the signals the caller ignores, as an os/exec child
// does: Go resets only the signals it handles, and SIGINT or SIGHUP
// ignored when the caller started (a background job of a shell, nohup)
// stay ignored across exec. A server that does not set such a signal
// itself then ignores it as its stop signal, and Stop ends it by SIGKILL
// after the grace. Start leaves the caller's process as it is; a caller
// that wants the default for its launches handles the signal first
// (signal.Notify), as docs/library.md says.
func Start(ctx context.Context, l *spec.Launch, opts Options) (*Launch, error) {
	return startHeld(ctx, l, opts, Held{})
}

// startHeld is Start with what a relaunch holds (h).
func startHeld(ctx context.Context, l *spec.Launch, opts Options, h Held) (*Launch, error) {
	var env *Env
	testDir := false
	if opts.State == nil && opts.StateDir == "" {
		opts.StateDir = testStateDir()
		testDir = opts.StateDir != ""
	}
	la, err := startChecked(ctx, l, opts, h, &env)
	switch {
	case !testDir:
	case la == nil:
		releaseTestState()
	case !opts.Detach:
		la.testState = true // finish gives it back
	}
	secrets := launchSecrets(l, env, opts)
	if la != nil {
		la.Report.Mask(secrets)
	}
	return la, mask.Err(err, secrets)
}

// startChecked is startHeld once the state dir is decided: the relay
// program, the ports, then start; the Error names the launch.
func startChecked(ctx context.Context, l *spec.Launch, opts Options, h Held, env **Env) (*Launch, error) {
	if opts.Detach {
		var err error
		if opts.Relay, err = relay.Program(opts.Relay); err != nil {
			h.Lock.Unlock()
			return nil, err
		}
	}
	if l != nil && !opts.FromSpec {
		var err error
		if l, err = portplaceholder.Fill(l); err != nil {
			h.Lock.Unlock()
			return nil, err
		}
	}
	la, err := start(ctx, l, opts, env, h)
	var e *Error
	if l != nil && errors.As(err, &e) && e.Name == "" {
		e.Name = l.Name
	}
	return la, err
}

// start checks the launch, takes its lock, resolves its environment,
// preflights its ports and previous instance, then runs its attempts.
// envOut gets the resolved environment, even when a later step fails.
func start(ctx context.Context, l *spec.Launch, opts Options, envOut **Env, h Held) (*Launch, error) {
	st, dir, err := checkStart(l, opts)
	if err != nil {
		h.Lock.Unlock() // the held lock (relaunch's) is let go on every refusal
		return nil, err
	}
	s := &startRun{l: l, opts: opts, h: h, st: st, dir: dir}
	if err := s.prepare(ctx, envOut); err != nil {
		return nil, err
	}
	return s.attempts(ctx)
}

// startRun is what the steps of a start share once the launch is
// checked.
type startRun struct {
	l    *spec.Launch
	opts Options
	h    Held
	st   *State
	// lock is the launch's lock (h.Lock, or the one prepare took).
	lock *statedir.LaunchLock
	env  *Env
	v    *verify.Verifier
	// dir is the launch's working directory (launchDir), decided once
	// by checkStart for every step of the start.
	dir string
	// prev is the launch's record as prepare read it (its file, and what
	// it loads as), when nothing wrote it since; nil: attempts reads it.
	prev *loadedRecord
}

// loadedRecord is a launch's record file (nil: none, or unreadable) and
// what it loads as (State.LoadFile).
type loadedRecord struct {
	file []byte
	rec  *Record
	err  error
}

// checkStart decides whether the launch can start at all, before
// anything is taken or started: a name, exactly one of command and
// dispatch, a valid spec, Options.Ready that fits it, a user and group
// that resolve, a state dir that can take the launch's files
// (checkWritable), and a worker selector that can match. It
// returns the state dir and the launch's working directory (launchDir,
// asked once: without Dir and a spec file, os.Getwd's two stats); it
// takes nothing (start lets go of a held lock when it refuses).
func checkStart(l *spec.Launch, opts Options) (*State, string, error) {
	dir := ""
	if l != nil {
		dir = launchDir(l)
	}
	st, err := checkStartIn(l, opts, dir)
	return st, dir, err
}

// checkStartIn is checkStart with the launch's working directory dir.
func checkStartIn(l *spec.Launch, opts Options, dir string) (*State, error) {
	if err := validLaunch(l, opts.LookupEnv, dir); err != nil {
		return nil, err
	}
	if opts.Detach && (opts.Stdout != nil || opts.Stderr != nil) {
		return nil, errorf(outcome.Usage, "launch %q: Options.Stdout and Options.Stderr are for a foreground launch, and Options.Detach is set: a detached launch's output is read back from its log, which does not keep the streams apart", l.Name)
	}
	if err := opts.Ready.check(l); err != nil {
		return nil, err
	}
	if _, err := runas.Credential(l); err != nil {
		// user/group that cannot be resolved or need root: before anything starts.
		return nil, err
	}
	st, err := launchState(opts.State, opts.StateDir)
	if err != nil {
		return nil, err
	}
	// Everything the launch will write, before on_stale = replace stops
	// anything or the worker starts.
	if err := st.CheckWritable(l.Name); err != nil {
		return nil, err
	}
	return st, nil
}

// validLaunch checks a launch by the spec loader's rules before anything
// is taken or started (spec's Launch.Validate and Launch.CheckRun: the
// program found and executable, the worker selector able to match); a
// broken rule is a usage Error wrapping the *spec.InvalidError that
// names the field, by its Go name for a Go caller. lookup answers the
// caller's PATH (nil: os.LookupEnv); dir is the launch's working
// directory ("": launchDir's).
func validLaunch(l *spec.Launch, lookup func(string) (string, bool), dir string) error {
	if l == nil {
		return errorf(outcome.Usage, "no launch (a nil *spec.Launch)")
	}
	err := l.Validate()
	if err == nil {
		if lookup == nil {
			lookup = os.LookupEnv
		}
		path, ok := l.Env["PATH"]
		if !ok {
			path, _ = lookup("PATH")
		}
		if dir == "" {
			dir = launchDir(l)
		}
		err = l.CheckRun(path, dir)
	}
	if err == nil {
		return nil
	}
	var ie *spec.InvalidError
	if errors.As(err, &ie) {
		ie.GoNames = true // the childproof command says the spec's names
	}
	return &Error{Outcome: outcome.Usage, Err: err}
}

// prepare takes the launch's lock (unless h holds it), clears what a
// killed writer left of its record, resolves the environment (into
// *envOut, even when that fails) and its secret set, and decides whether
// the ports and the previous instance let the launch start (preflight,
// guardPrevious: on_stale = replace stops our own previous instance). A
// failure after the lock is taken releases it.
func (s *startRun) prepare(ctx context.Context, envOut **Env) error {
	l, opts, st := s.l, s.opts, s.st
	lock := s.h.Lock
	if lock == nil {
		var err error
		if lock, err = st.Lock(l.Name); err != nil {
			return err
		}
	}
	s.lock = lock
	// What a writer killed between its temporary file and the rename
	// left of this launch's record goes now (we hold the lock).
	st.CleanRecordTemps(l.Name)
	env, err := launchenv.ResolveFrom(l, opts.Set, opts.LookupEnv, opts.Environ, !opts.FromSpec)
	*envOut = env
	if err != nil {
		lock.Unlock()
		return err
	}
	env.SetSecrets(mask.SecretSet(l, env.Vars, opts.SecretSet, nil, nil)) // --set-secret
	s.env = env
	if opts.Subreaper {
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	v := &verify.Verifier{Proc: opts.Proc, State: st, ShowValues: opts.ShowValues}
	s.v = v
	// The record of the previous instance is read once: guardPrevious
	// decides on it, and attempts keeps its file and begins the round
	// from it, unless a stop (on_stale = replace, here or in preflight:
	// each says so through notify) marked it since. No one else writes
	// it meanwhile: we hold the lock.
	prevFile, prev, prevErr := st.LoadFile(l.Name)
	stopped := false
	notify := func(r *Replaced) {
		stopped = true
		if n := opts.replaced(); n != nil {
			n(r)
		}
	}
	// Alive is the recorded tree, not the port: a portless launch, or one
	// whose ranks outlived their agent, is the previous instance too. It
	// is asked first, so that a launch of the name that is alive is one
	// answer (exit 6, naming its spec file and pid) with or without a
	// port, and exit 4 stays for what childproof did not start.
	if err := guardPrevious(ctx, v.Proc, st, l, notify, prev, prevErr); err != nil {
		lock.Unlock()
		return err
	}
	if err := preflight(ctx, v, st, l, notify); err != nil {
		lock.Unlock()
		return err
	}
	if !stopped {
		s.prev = &loadedRecord{file: prevFile, rec: prev, err: prevErr}
	}
	return nil
}

// attempts runs the round's attempts (up to EffectiveAttempts) and
// decides when to try again: only after a failure that retries (a lost
// race, a worker that never appeared) and whose context is live, each
// retry after preflightRetry. A failed attempt is stopped and the record
// file put back as it was; the round is finished and the lock released
// (or kept, see started) whatever happens.
func (s *startRun) attempts(ctx context.Context) (*Launch, error) {
	l, st, lock := s.l, s.st, s.lock
	// The record file as it was (a failed launch puts it back), and the
	// record it holds (the new round's, which writes no record): one
	// read, prepare's when nothing wrote it since.
	prev := s.prev
	if prev == nil {
		prev = &loadedRecord{}
		prev.file, prev.rec, prev.err = st.LoadFile(l.Name)
	}
	prevRecord := prev.file
	rd := st.beginRound(l, s.opts, s.h.Plan, prev.rec, prev.err)
	var lastLa *Launch
	var last *Error
	for attempt := 1; attempt <= l.EffectiveAttempts(); attempt++ {
		if attempt > 1 {
			// A newcomer that took the port gets a moment to let go of it
			// (a port probe, a short-lived listener); one that still
			// holds it then is no race: exit 4.
			if err := preflightRetry(ctx, s.v, st, l); err != nil {
				st.finishRound(rd, lastLa, err)
				lock.Unlock()
				return nil, err
			}
		}
		la := &Launch{Spec: l, Env: s.env, State: st, opts: s.opts, lock: lock, worker: workerRef{fd: -1}, notes: launchNotes{round: rd}, workDir: s.dir}
		lastLa = la
		err := la.launch(ctx, s.v, attempt)
		if err == nil {
			st.finishRound(rd, la, nil)
			s.started(la)
			return la, nil
		}
		pid := la.worker.Pid
		if pid == 0 && la.tree != nil {
			pid = la.tree.Root.Pid()
		}
		la.abort()
		la.restoreRecord(prevRecord)
		var e *Error
		if errors.As(err, &e) && e.Pid == 0 {
			e.Pid = pid
		}
		if !errors.As(err, &e) {
			st.finishRound(rd, la, err)
			lock.Unlock()
			return nil, err
		}
		if e.Report != nil {
			// A failed launch is never verified, whatever passed before
			// the failure (the worker killed while readiness was probed).
			e.Report.Attempts, e.Report.Verified = attempt, false
		}
		last = e
		if !e.Retry || ctx.Err() != nil {
			break
		}
	}
	st.finishRound(rd, lastLa, last)
	lock.Unlock()
	return nil, last
}

// started hands a verified launch its output: detached, the pipe is
// drained into the log and let go, the lock released (unless h.Keep) and
// the follower stopped; then the output is running.
func (s *startRun) started(la *Launch) {
	if s.opts.Detach {
		// What the tree printed so far is in the log (the relay
		// has caught up) when run returns; the relay goes on alone.
		la.pipe.Drain(2 * time.Second)
		la.pipe.Close()
		if !s.h.Keep {
			s.lock.Unlock()
			la.lock = nil
		}
		la.out.Stop()
		la.events.Close()
		la.tree.ReleaseCgroup() // no descriptor held for a tree let go of
	}
	la.out.Running()
}

// raceGrace bounds how long a retry waits for a newcomer on a declared
// port to leave before the launch is exit 4.
const raceGrace = time.Second

// preflightRetry is the preflight of a retry: while a foreign holder is
// on a port, it polls (10 ms) for up to raceGrace (at most the ready
// timeout), then fails as preflight does.
func preflightRetry(ctx context.Context, v *verify.Verifier, st *State, l *spec.Launch) error {
	end := time.Now().Add(min(raceGrace, l.ReadyTimeout()))
	for {
		err := preflight(ctx, v, st, l, nil)
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Outcome != outcome.Foreign || !time.Now().Before(end) || ctx.Err() != nil {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// preflight fails with exit 4 when a declared port is held by anything but
// our own recorded previous instance, which it stops when on_stale = replace.
func preflight(ctx context.Context, v *verify.Verifier, st *State, l *spec.Launch, notify func(*Replaced)) error {
	for _, pt := range l.Ports {
		hs, err := verify.Holders(v.Proc, pt.Number, nil)
		if err != nil {
			return &Error{Outcome: outcome.Usage, Msg: fmt.Sprintf("port %d: socket table", pt.Number), Err: err}
		}
		for _, h := range hs {
			rec, _ := st.Load(l.Name)
			if rec != nil && (rec.Stopped == nil && slices.Contains(h.Pids, rec.Worker.Pid) && rec.Worker.Check(v.Proc) == verify.Alive || leftOver(v.Proc, rec, h.Pids)) {
				if l.OnStale == spec.StaleReplace {
					res, err := StopRecord(ctx, v.Proc, st, rec, 0) // its own stop block
					if err != nil {
						return err
					}
					if notify != nil {
						notify(&Replaced{Name: l.Name, Port: pt.Number, Stopped: res.Message})
					}
					continue
				}
				holder := rec.Worker.Pid
				if !slices.Contains(h.Pids, holder) {
					holder = h.Pids[0] // what the gone worker left
				}
				r := verify.NewReport(l.Name)
				census := h.Census(v.Proc)
				r.Add(verify.KindPortForeign, "port %d is held by our own previous launch of %q (pid %d) and OnStale is not %q: %s", pt.Number, l.Name, holder, spec.StaleReplace, census)
				r.SetOutcome(outcome.Foreign)
				e := &Error{Outcome: outcome.Foreign, Report: r, Port: pt.Number, Pid: holder, Name: l.Name, Spec: l, Other: census,
					Msg:  fmt.Sprintf("port %d is held by the previous launch of %q (pid %d)", pt.Number, l.Name, holder),
					Hint: stopHint, Fix: FixStop}
				if rec.SpecPath != "" && l.SpecPath != "" && filepath.Clean(rec.SpecPath) != filepath.Clean(l.SpecPath) {
					e.Hint, e.Fix = otherSpecHint, FixOtherSpec
				}
				return e
			}
			r := verify.NewReport(l.Name)
			r.Add(verify.KindPortForeign, "%s", h.Census(v.Proc))
			r.SetOutcome(outcome.Foreign)
			return &Error{Outcome: outcome.Foreign, Report: r, Port: pt.Number,
				Msg:  fmt.Sprintf("port %d is held by a process childproof did not start: %s", pt.Number, h.Census(v.Proc)),
				Hint: "childproof never signals a process it did not start; stop that process yourself or pick another port"}
		}
	}
	return nil
}

// leftOver reports whether every pid holding a port is in rec's own
// cgroup: what a previous launch left when its worker died (a pre-fork
// master killed on its own leaves its workers on the port). They are that
// launch's, whatever became of its worker.
func leftOver(p proc.FS, rec *Record, pids []int) bool {
	cg := proctree.TrustedCgroup(rec.Cgroup, rec.Name)
	if cg == "" || len(pids) == 0 {
		return false
	}
	for _, pid := range pids {
		if !proctree.InCgroup(p, pid, cg) {
			return false
		}
	}
	return true
}

// launch runs one attempt: open the log and its mask, pipe the tree's
// output, build the command, spawn the tree, then find the worker and
// verify it (findAndVerify).
func (la *Launch) launch(ctx context.Context, v *verify.Verifier, attempt int) error {
	r := verify.NewReport(la.Spec.Name)
	r.Attempts = attempt
	r.Log = la.LogPath()
	sp := &spawnRun{r: r}
	logf, err := la.openLogAndMask(sp)
	if err != nil {
		return err
	}
	if err := la.pipeOutput(sp, logf); err != nil {
		return err
	}
	devnull, err := openDevNull()
	if err != nil {
		return err
	}
	defer devnull.Close()
	sp.devnull = devnull
	if err := la.buildCommand(sp); err != nil {
		return err
	}
	// A root this goroutine forks untraced dies with the forking thread
	// (Pdeathsig): sp.start locks the goroutine to it for the rest of the
	// attempt. A traced root is forked by the tracer's thread, locked
	// while the root runs; this goroutine is then not locked, and its
	// find loop's sleeps park it without handing its thread over (a
	// locked goroutine's every park and wake-up moves the P between
	// threads: two futex calls and two context switches more each).
	defer sp.unlockThread()
	if err := la.spawn(sp); err != nil {
		return err
	}
	if la.Spec.Oneshot {
		return la.runOneshot(ctx, v, r)
	}
	return la.findAndVerify(ctx, v, r)
}

// openDevNull opens /dev/null for reading, as os.Open does (its error
// too), without os.Open's try to put it into the runtime's poller (which
// refuses a character device: five system calls for nothing).
func openDevNull() (*os.File, error) {
	fd, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: os.DevNull, Err: err}
	}
	return os.NewFile(uintptr(fd), os.DevNull), nil
}

// spawnRun is what the steps of one attempt share to start the tree.
type spawnRun struct {
	// r is the attempt's report.
	r *verify.Report
	// prog and argv are the program and the arguments the tree starts.
	prog string
	argv []string
	// marker is the launch's MarkerVar value; envList the tree's
	// environment with it.
	marker  string
	envList []string
	// out is the tree's output pipe; logw its write end, the tree's
	// stdout and stderr.
	out  *relay.Pipe
	logw *os.File
	// errw is the tree's stderr: logw, or the stderr pipe's write end
	// when Options.Stdout or Stderr keeps the streams apart.
	errw *os.File
	// devnull is the tree's stdin.
	devnull *os.File
	// sys, cred and cgf are the tree's process attributes, its
	// credential (nil: childproof's own) and its cgroup's directory (nil:
	// none).
	sys  *syscall.SysProcAttr
	cred *syscall.Credential
	cgf  *os.File
	// cmd is the command of the latest try; root the tree's root.
	cmd  *exec.Cmd
	root *sigtree.Root
	// locked is set while start holds the goroutine to the thread that
	// forked an untraced root.
	locked bool
}

// openLogAndMask opens the launch's log and saves its mask, with the
// secret set made once more now with the argv (each secret's digest and
// where it occurs, for the log mask and the record), and decides where
// Output and Ready.Log get what the log gets. An argv that cannot be made
// is the exit-5 failure "the worker never appeared".
func (la *Launch) openLogAndMask(sp *spawnRun) (*os.File, error) {
	l := la.Spec
	logf, err := la.State.OpenLog(l.Name, l.EffectiveLogKeep())
	argv, prog, argvErr := la.argv()
	sp.argv, sp.prog = argv, prog
	la.Env.SetSecrets(mask.SecretSet(l, la.Env.Vars, la.opts.SecretSet, argv, la.State.Digest))
	if err == nil {
		if err = la.State.SaveLogMaskFor(l.Name, la.Env.Secrets(), la.opts.Detach); err != nil {
			logf.Close()
		}
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, &Error{Outcome: outcome.Usage, Msg: "log", Err: err}
	}
	// Output and Ready.Log get what the log gets: in the foreground from
	// the pipe's reader in the same pass, detached from the log.
	if la.opts.Detach {
		la.out = output.Follow(sp.r.Log, la.opts.Output, la.outputWatch())
	} else {
		la.out = output.Feed(la.opts.Output, la.outputWatch())
	}
	if argvErr != nil {
		logf.Close()
		return nil, la.exitedError(sp.r, fmt.Sprintf("the worker never appeared: %v", argvErr))
	}
	return logf, nil
}

// pipeOutput makes the pipe the tree writes to, which childproof reads
// and masks into logf (at the source: the log never holds a secret);
// logf is the reader's from here. Neither the relay nor the tree
// inherits a descriptor of the caller (noinherit.Run).
func (la *Launch) pipeOutput(sp *spawnRun, logf *os.File) error {
	sp.marker = proctree.NewMarker(la.Spec.Name)
	var also io.Writer
	if la.out != nil && !la.opts.Detach {
		also = la.out
	}
	prog := ""
	if la.opts.Detach {
		prog = la.opts.Relay
	}
	var out *relay.Pipe
	var err error
	if la.opts.Stdout != nil || la.opts.Stderr != nil {
		out, err = relay.StartSplit(logf, la.Env.Secrets(), also, la.opts.Stdout, la.opts.Stderr)
	} else {
		out, err = relay.Start(logf, la.Env.Secrets(), prog, sp.marker, also)
	}
	if err != nil {
		logf.Close()
		return &Error{Outcome: outcome.Usage, Msg: "log", Err: err}
	}
	la.pipe = out
	sp.out, sp.logw, sp.errw = out, out.Stdout(), out.Stderr()
	return nil
}

// buildCommand makes the tree (la.tree) and its command: environment with
// the marker, working directory, credential, a session of its own when
// detached (else a process group and the parent-death signal), and a new
// cgroup to start in unless Options.NoCgroup.
func (la *Launch) buildCommand(sp *spawnRun) error {
	l := la.Spec
	t := &sigtree.Tree{P: la.opts.Proc, Leader: -1, Marker: sp.marker,
		Daemons: la.Spec.Worker.Comm != "" || la.Spec.Worker.Exe != "" || len(la.Spec.Ports) > 0 || len(la.Spec.Roles) > 0}
	la.tree = t
	sp.envList = proctree.WithMarker(la.Env.List(), t.Marker)
	cmd := &exec.Cmd{Path: sp.prog, Args: sp.argv, Env: sp.envList, Dir: la.dir(), Stdin: sp.devnull, Stdout: sp.logw, Stderr: sp.errw}
	sys := &syscall.SysProcAttr{PidFD: &t.Leader}
	cred, err := runas.Credential(l)
	if err != nil {
		return err
	}
	sys.Credential = cred
	if la.opts.Detach {
		sys.Setsid = true
	} else {
		sys.Setpgid = true
		sys.Pdeathsig = syscall.SIGKILL
	}
	if !la.opts.NoCgroup {
		t.Cgroup, sp.cgf = proctree.NewCgroup(l.Name)
		if sp.cgf != nil {
			sys.UseCgroupFD = true
			sys.CgroupFD = int(sp.cgf.Fd())
		}
	}
	cmd.SysProcAttr = sys
	sp.cmd, sp.sys, sp.cred = cmd, sys, cred
	return nil
}

// spawn journals the launch and starts the tree: into its cgroup, and
// when that fails once more without one (the journal first says there is
// none). A tree that does not start is the exit-5 failure "the worker
// never appeared". The started root is recorded as pending.
func (la *Launch) spawn(sp *spawnRun) error {
	l, t := la.Spec, la.tree
	sp.root = &sigtree.Root{Done: make(chan struct{})}
	if !la.opts.Detach {
		// Before the tree starts: there is no moment its starter can die
		// unwatched.
		la.watchdog = watchdog.Start(proctree.MarkerVar+"="+sp.marker, t.Cgroup)
	}
	if err := la.journal(sp.argv); err != nil {
		if sp.cgf != nil {
			sp.cgf.Close()
			proctree.RemoveCgroup(t.Cgroup)
		}
		return err
	}
	if la.wantsTreeEvents() {
		la.events = treeevents.Listen()
	}
	err := noinherit.Run(func() error { return sp.start(la, sp.cmd) })
	if err != nil && sp.cgf != nil {
		sp.cgf.Close()
		proctree.RemoveCgroup(t.Cgroup)
		t.Cgroup, sp.cgf = "", nil
		sp.sys.UseCgroupFD, sp.sys.CgroupFD = false, 0
		// The journal first says there is no cgroup: a record that names
		// one describes a tree only ever started into it (proctree.CgroupRemoved).
		if err := la.journal(sp.argv); err != nil {
			return err
		}
		sp.cmd = sp.newCmd(la)
		err = noinherit.Run(func() error { return sp.start(la, sp.cmd) })
	}
	if sp.cgf != nil {
		sp.cgf.Close()
	}
	sp.out.Started()
	if err != nil {
		la.events.Close()
		la.events = nil
		if sp.cred != nil && errors.Is(err, syscall.EACCES) {
			e := la.exitedError(sp.r, fmt.Sprintf("the worker never appeared: %v (as %s: the program or the directory %s is not accessible to uid %d)", err, runas.Name(l), la.dir(), sp.cred.Uid))
			e.Spec = l // the caller names its user and group its own way
			return e
		}
		return la.exitedError(sp.r, fmt.Sprintf("the worker never appeared: %v", err))
	}
	pid := sp.cmd.Process.Pid
	t.Root, t.Pgid = sp.root, pid
	la.events.Follow(pid)
	if fp, err := la.rootFingerprint(pid); err == nil {
		sp.root.FP = fp
	} else {
		sp.root.FP = verify.Fingerprint{Pid: pid}
	}
	la.recordPending()
	return nil
}

// rootFingerprint fingerprints the root through the pidfd its start left
// in the tree's Leader (no second pidfd on it), or through one of its own
// where the kernel gave none.
func (la *Launch) rootFingerprint(pid int) (verify.Fingerprint, error) {
	if la.tree.Leader >= 0 {
		return verify.FingerprintPidfd(la.opts.Proc, pid, la.tree.Leader)
	}
	return verify.TakeFingerprint(la.opts.Proc, pid)
}

// wantsTreeEvents reports whether the launch listens to its tree's
// events: a foreground launch (supervision judges every new member), or
// one whose readiness is probed (a fork, exec or exit in the tree brings
// the next probe forward). A detached launch ready on a TCP connect or
// a log line does not pay for the subscription.
func (la *Launch) wantsTreeEvents() bool {
	k := la.Spec.Ready.Kind()
	return !la.opts.Detach || k == "http" || k == "exec" || la.opts.Ready.Func != nil
}

// newCmd is the tree's command afresh, with sp's process attributes.
func (sp *spawnRun) newCmd(la *Launch) *exec.Cmd {
	return &exec.Cmd{Path: sp.prog, Args: sp.argv, Env: sp.envList, Dir: la.dir(), Stdin: sp.devnull, Stdout: sp.logw, Stderr: sp.errw, SysProcAttr: sp.sys}
}

// start starts cmd, traced for exec-time evidence unless that is off or
// refused (a seccomp policy, or a tracer already on us): then cmd is made
// afresh without the trace and started plainly.
func (sp *spawnRun) start(la *Launch, cmd *exec.Cmd) error {
	sp.root.Cmd = cmd
	if !la.noExecCapture() {
		w, err := exectrace.Start(cmd, la.opts.Detach, func() { sp.reap(la.tree.Leader) }, sp.root.Done)
		if err == nil {
			la.exec.watch = w
			la.tree.Forked = func() []int { return w.ForkedPids(la.opts.Proc) }
			return nil
		}
		sp.sys.Ptrace = false
		*cmd = *sp.newCmd(la)
	}
	if !la.opts.Detach && !sp.locked {
		// Pdeathsig fires when the forking thread exits: keep it alive.
		runtime.LockOSThread()
		sp.locked = true
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sp.reap(la.tree.Leader)
	return nil
}

// unlockThread undoes start's lock of the goroutine to its thread, if
// it took one.
func (sp *spawnRun) unlockThread() {
	if sp.locked {
		runtime.UnlockOSThread()
		sp.locked = false
	}
}

// reap waits for the root in the background and records how it ended,
// closing root.Done then. It waits for the exit on leader, the root's
// pidfd (open until root.Done), in the runtime's network poller: a
// goroutine blocked in waitid for the tree's whole life would hold a
// thread in a syscall, which the runtime's sysmon keeps taking its P from.
func (sp *spawnRun) reap(leader int) {
	root := sp.root
	go func() {
		pidfd.Await(context.Background(), leader)
		root.Cmd.Wait()
		root.Status = sigtree.ProcessStatus(root.Cmd.ProcessState)
		root.State = root.Cmd.ProcessState
		close(root.Done)
	}()
}

// noExecCapture reports whether exec-time capture is off for this launch.
func (la *Launch) noExecCapture() bool {
	return la.opts.NoExecCapture || os.Getenv("CHILDPROOF_NO_EXEC_CAPTURE") == "1"
}
