package launcher

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/internal/probe"
	"github.com/childproof/childproof/internal/wakeup"
	"github.com/childproof/childproof/launcher/output"
	"github.com/childproof/childproof/launcher/readiness"
	"github.com/childproof/childproof/launcher/runas"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

const (
	// execRunTimeout bounds one run of ready.exec (it is killed, with
	// its process group, after it).
	execRunTimeout = 5 * time.Second
	// probeRunTimeout bounds one TCP connect or GET.
	probeRunTimeout = 2 * time.Second
)

// outputWatch is what the launch's follower looks for: Options.Ready.Log,
// the spec's ready.log, and a wake-up for readiness waits on every line
// when the wait has a probe that a line may make worth running again.
func (la *Launch) outputWatch() output.Watch {
	w := output.Watch{Opt: la.opts.Ready.Log, OptN: la.opts.Ready.LogCount}
	if la.Spec.Ready.Log != "" {
		w.Spec, _ = regexp.Compile(la.Spec.Ready.Log) // checked by the schema
	}
	if la.Spec.Ready.Kind() != "tcp" || la.opts.Ready.Log != nil || la.opts.Ready.Func != nil {
		if la.notes.wake == nil {
			la.notes.wake = wakeup.New()
		}
		w.Wake = la.notes.wake.Ring
	}
	return w
}

// listenWatch takes the first look at the sockets of worker's network
// namespace, for a readiness wait.
func (la *Launch) listenWatch(worker int) *readiness.ListenWatch {
	return readiness.NewListenWatch(la.opts.Proc, worker, func() []int { return la.tree.Members() })
}

// wakes is what wakes a readiness wait of the launch: its lines, its
// tree's events and lw (nil: none).
func (la *Launch) wakes(lw *readiness.ListenWatch) readiness.Wakes {
	return readiness.Wakes{Lines: la.notes.wake, Tree: la.events, Listen: lw}
}

// probeReady waits for the spec's readiness (a TCP connect to each port,
// the GET of ready.http judged by ready.status, ready.exec exiting 0, a
// line matching ready.log), within the deadline: the socket table already
// says the worker owns its ports, so a connect cannot be answered by
// anyone else (nor by itself). A worker that exits meanwhile is exit 5;
// the deadline is the not-ready failure with what the last probe said.
func (la *Launch) probeReady(ctx context.Context, r *verify.Report, c verify.Check, worker, wfd int, deadline time.Time) error {
	l := la.Spec
	kind := l.Ready.Kind()
	if kind == "tcp" && len(l.Ports) == 0 {
		return nil
	}
	if kind == "log" {
		return la.waitLine(ctx, r, worker, wfd, deadline, la.out.SpecMatched, fmt.Sprintf("no line of its output matched Ready.Log %q", l.Ready.Log))
	}
	check := la.readyCheck(c)
	// A worker in another network namespace is reached from there.
	pctx := probe.FromNetNSOf(ctx, la.opts.Proc.Root, worker)
	p := readiness.NewPacer()
	// Sockets that appear in the tree wake the wait: taken after the
	// first probe failed (most are answered at once).
	var lw *readiness.ListenWatch
	defer func() { lw.Close() }()
	var last error
	for {
		if pidfd.Exited(wfd) {
			return la.exitedError(r, la.exitWhat(worker))
		}
		err := check(pctx, deadline)
		p.Ran()
		if err == nil {
			return nil
		}
		if last == nil || !errors.Is(err, errCutShort) {
			last = err
		}
		if err := ctx.Err(); err != nil {
			return la.interrupted(r, err)
		}
		if !time.Now().Before(deadline) {
			e := la.notReadyError(r, last.Error())
			answered(e, last, l)
			return e
		}
		pr := la.progressBase(r.Attempts, deadline.Add(-l.ReadyTimeout()))
		pr.Phase, pr.Worker, pr.Comm, pr.Last = PhaseReady, worker, la.worker.Comm, last.Error()
		la.progress(pr)
		if lw == nil {
			lw = la.listenWatch(worker)
		}
		readiness.Wait(ctx, wfd, p.Due(), deadline, p, la.wakes(lw))
	}
}

// readyCheck returns one probe of the spec's kind: ready.exec run once,
// or a TCP connect / GET of every declared port.
func (la *Launch) readyCheck(c verify.Check) func(ctx context.Context, deadline time.Time) error {
	l := la.Spec
	if len(l.Ready.Exec) > 0 {
		return la.execProbe
	}
	var match func(int, []byte) error
	if la.opts.Ready.Status != nil || la.opts.Ready.Body != nil || len(l.Ready.Status) > 0 {
		match = func(code int, body []byte) error {
			if !l.Ready.StatusOK(code) && len(l.Ready.Status) > 0 {
				return &probe.StatusError{Code: code}
			}
			if la.opts.Ready.Status != nil || la.opts.Ready.Body != nil {
				return la.opts.Ready.matchHTTP(code, body)
			}
			return nil
		}
	}
	return func(ctx context.Context, deadline time.Time) error {
		t := min(probeRunTimeout, max(time.Until(deadline), time.Millisecond))
		err := probe.ReadyMatch(ctx, c.Ports, c.ReadyHTTP, t, match)
		if err != nil && t < probeRunTimeout && !time.Now().Before(deadline) {
			// The deadline, not the worker, ended this probe: the last
			// answer before it (a 503, a body that did not match) is
			// what the failure says.
			return fmt.Errorf("%w (%w)", err, errCutShort)
		}
		return err
	}
}

// execProbe runs ready.exec once: no shell, in the launch's directory and
// environment (and as its user), for at most execRunTimeout (then it is
// killed with its process group). Nil when it exits 0; else its exit
// and the last line it printed, secrets masked.
func (la *Launch) execProbe(ctx context.Context, deadline time.Time) error {
	l := la.Spec
	argv := l.Ready.Exec
	prog := argv[0]
	if !strings.Contains(prog, "/") {
		found, ok := spec.LookPath(prog, la.Env.Vars["PATH"], la.dir())
		if !ok {
			return fmt.Errorf("Ready.Exec: %s: not found in the launch's PATH", la.Env.Secrets().Arg(prog))
		}
		prog = found
	} else if !filepath.IsAbs(prog) {
		prog = filepath.Join(la.dir(), prog)
	}
	limit := min(execRunTimeout, max(time.Until(deadline), time.Millisecond))
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var out tailBuffer
	cmd := &exec.Cmd{Path: prog, Args: argv, Env: la.Env.List(), Dir: la.dir(), Stdout: &out, Stderr: &out,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	if cred, _ := runas.Credential(l); cred != nil {
		cmd.SysProcAttr.Credential = cred
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("Ready.Exec: %s", la.Env.Secrets().Text(err.Error()))
	}
	pid := cmd.Process.Pid
	stop := context.AfterFunc(rctx, func() { unix.Kill(-pid, unix.SIGKILL) })
	err := cmd.Wait()
	stop()
	if err == nil {
		return nil
	}
	what := "Ready.Exec " + la.Env.Secrets().Arg(filepath.Base(argv[0]))
	if errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		if limit < execRunTimeout {
			return fmt.Errorf("%s was cut short by the readiness deadline: %w", what, errCutShort)
		}
		return fmt.Errorf("%s did not exit within %s", what, execRunTimeout)
	}
	msg := fmt.Sprintf("%s: %v", what, err)
	if line := out.lastLine(); line != "" {
		msg += ": " + la.Env.Secrets().Text(line)
	}
	return errors.New(msg)
}

// errCutShort is a probe that the readiness deadline ended before it
// could say anything: the previous probe's answer is the one reported.
var errCutShort = errors.New("cut short")

// tailBuffer keeps the last 512 bytes written to it. Safe for concurrent
// use (a command's stdout and stderr).
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 512 {
		t.b = append(t.b[:0], t.b[len(t.b)-512:]...)
	}
	return len(p), nil
}

// lastLine is the last non-empty line written, at most 200 bytes.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.b), []byte("\n"))
	s := strings.TrimSpace(string(lines[len(lines)-1]))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// waitLine waits, within the deadline, until matched reports a line of
// the worker's output matched (what: the not-ready failure's words),
// waking on each line it prints and on its exit.
func (la *Launch) waitLine(ctx context.Context, r *verify.Report, worker, wfd int, deadline time.Time, matched func() bool, what string) error {
	pr := la.progressBase(r.Attempts, deadline.Add(-la.Spec.ReadyTimeout()))
	pr.Phase, pr.Worker, pr.Comm, pr.Last = PhaseReady, worker, la.worker.Comm, what
	la.progress(pr)
	// Without a wake-up (no eventfd) the log is looked at every
	// output.FollowEvery, as it is read.
	every := readiness.ProbeSlowest
	if la.notes.wake.PollFd() < 0 {
		every = output.FollowEvery
	}
	p := readiness.EventPacer(every)
	for !matched() {
		if pidfd.Exited(wfd) {
			if matched() {
				break
			}
			return la.exitedError(r, la.exitWhat(worker))
		}
		if err := ctx.Err(); err != nil {
			return la.interrupted(r, err)
		}
		if !time.Now().Before(deadline) {
			return la.notReadyError(r, what)
		}
		readiness.Wait(ctx, wfd, time.Now().Add(every), deadline, p, la.wakes(nil))
	}
	return nil
}
