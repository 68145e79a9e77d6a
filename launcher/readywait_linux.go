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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/internal/probe"
	"github.com/childproof/childproof/internal/wakeup"
	"github.com/childproof/childproof/launcher/output"
	"github.com/childproof/childproof/launcher/runas"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
	"golang.org/x/sys/unix"
)

// Readiness probing is paced by what happens, within a budget: a probe
// runs at once when something changed (the worker printed a line, a
// member of the tree forked, exec'd or exited), and again eventFollowUp
// later; with nothing happening, every probeEvery, which grows once the
// wait has lasted probeSlowAfter, up to probeSlowest. probeEvery leaves
// part of the budget unspent, so that an event finds it: never more
// than maxProbesPerSecond probes in any second.
const (
	probeEvery         = 65 * time.Millisecond
	eventFollowUp      = 15 * time.Millisecond
	probeSlowAfter     = 10 * time.Second
	probeSlowest       = time.Second
	maxProbesPerSecond = 20
	// execRunTimeout bounds one run of ready.exec (it is killed, with
	// its process group, after it).
	execRunTimeout = 5 * time.Second
	// pollSlice bounds one poll(2) of a wait.
	pollSlice = 5 * time.Millisecond
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

// pacer spaces readiness probes: the next is due every after the last
// (probeEvery, slower once the wait has lasted probeSlowAfter), or
// eventFollowUp after it while an event's follow-ups last; an event
// makes a probe due at once. All of them spend one budget, a token
// bucket refilled at probeRate up to probeBurst: never more than
// probeBurst + probeRate = maxProbesPerSecond in any second, and a
// worker that logs every probe it is sent (an access log, which makes
// each probe an event) gets them evenly spaced, not in bursts. Not safe
// for concurrent use.
type pacer struct {
	began, last time.Time
	every       time.Duration
	// tokens is the budget left at filled.
	tokens float64
	filled time.Time
	// followUps is how many probes an event still brings eventFollowUp
	// apart.
	followUps int
	// clock is the time (nil: time.Now; tests set their own).
	clock func() time.Time
}

func (p *pacer) now() time.Time {
	if p.clock != nil {
		return p.clock()
	}
	return time.Now()
}

// The probe budget: probeBurst probes at once, refilled at probeRate a
// second.
const (
	probeBurst = 3
	probeRate  = maxProbesPerSecond - probeBurst
)

func newPacer() *pacer {
	now := time.Now()
	return &pacer{began: now, every: probeEvery, tokens: probeBurst, filled: now}
}

// fill brings the budget up to now.
func (p *pacer) fill(now time.Time) {
	if p.filled.IsZero() {
		p.tokens, p.filled = probeBurst, now
		return
	}
	p.tokens = min(probeBurst, p.tokens+now.Sub(p.filled).Seconds()*probeRate)
	p.filled = now
}

// ran notes a probe run now.
func (p *pacer) ran() {
	now := p.now()
	p.fill(now)
	p.tokens--
	p.last = now
	if p.followUps > 0 {
		p.followUps--
	}
	if now.Sub(p.began) > probeSlowAfter {
		p.every = min(p.every*5/4, probeSlowest)
	}
}

// event notes that something changed: a probe now (as soon as the
// budget allows) and one more eventFollowUp after it (a server may log
// that it is ready just before it answers so).
func (p *pacer) event() { p.followUps = 2 }

// earliest is when the budget allows the next probe.
func (p *pacer) earliest() time.Time {
	now := p.now()
	p.fill(now)
	if p.tokens >= 1 {
		return now
	}
	return now.Add(time.Duration((1 - p.tokens) / probeRate * float64(time.Second)))
}

// due is when the next probe runs.
func (p *pacer) due() time.Time {
	if p.last.IsZero() && p.followUps == 0 {
		return p.earliest()
	}
	at := p.last.Add(p.every)
	if p.followUps > 0 {
		at = p.last.Add(eventFollowUp)
		if p.followUps == 2 {
			at = time.Time{} // the event's own probe: now
		}
	}
	if e := p.earliest(); e.After(at) {
		at = e
	}
	return at
}

// waitEvent waits until at, the deadline, the worker's exit (wfd) or an
// event (a line of output, the tree's fork, exec or exit, a listening
// socket that appeared in the tree: lw, nil for none), whichever comes
// first; an event wakes it only once the rate cap allows another probe.
// It reports whether the worker is still running.
func (la *Launch) waitEvent(ctx context.Context, wfd int, at, deadline time.Time, p *pacer, lw *listenWatch) bool {
	if deadline.Before(at) {
		at = deadline
	}
	for {
		d := time.Until(at)
		if d <= 0 || ctx.Err() != nil {
			return !pidfd.Exited(wfd)
		}
		fds := []unix.PollFd{{Fd: int32(wfd), Events: unix.POLLIN}}
		if wf := la.notes.wake.PollFd(); wf >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(wf), Events: unix.POLLIN})
		}
		if tf := la.events.ReadyFd(); tf >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(tf), Events: unix.POLLIN})
		}
		// At most pollSlice in the syscall: the runtime's sysmon takes a
		// P back from a syscall of 10 ms, which keeps it waking every
		// 20 µs.
		n, _ := unix.Poll(fds, max(int((min(d, pollSlice)+time.Millisecond-1)/time.Millisecond), 1))
		if n > 0 && fds[0].Revents != 0 {
			return false
		}
		line, moved := false, false
		if n > 0 {
			line = la.notes.wake.Drain()
			moved = la.events.DrainReady()
		}
		if moved || line || lw.appeared() {
			if moved {
				readyTreeWakes.Add(1)
			}
			p.event()
			if e := p.due(); e.After(time.Now()) {
				if e.Before(at) {
					at = e // probe as soon as the budget allows
				}
				continue
			}
			return true
		}
	}
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
	p := newPacer()
	// Sockets that appear in the tree wake the wait: taken after the
	// first probe failed (most are answered at once).
	var lw *listenWatch
	defer func() { lw.close() }()
	var last error
	for {
		if pidfd.Exited(wfd) {
			return la.exitedError(r, la.exitWhat(worker))
		}
		err := check(pctx, deadline)
		p.ran()
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
			lw = la.newListenWatch(worker)
		}
		la.waitEvent(ctx, wfd, p.due(), deadline, p, lw)
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

// readyTreeWakes counts the readiness waits a tree event woke (tests
// tell them from the paced probes).
var readyTreeWakes atomic.Int64

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
	every := probeSlowest
	if la.notes.wake.PollFd() < 0 {
		every = output.FollowEvery
	}
	p := &pacer{every: every}
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
		la.waitEvent(ctx, wfd, time.Now().Add(every), deadline, p, nil)
	}
	return nil
}
