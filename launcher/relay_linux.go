package launcher

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/logrelay"
	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/verify"
)

// relaySelf is set once this program called RelayMain (and was not
// started as a relay): it can be the relay of its own detached launches.
var relaySelf atomic.Bool

// RelayMain makes this process the log relay of a detached launch, and
// exits, when it was started as one; otherwise it returns at once, and
// this program's binary is the relay of its detached launches (see
// Options.Relay). A program calls it first in its main (a test binary:
// first in TestMain), before anything it does that a relay must not;
// the childproof command's main does. A program that never calls it is
// never re-run as a relay.
func RelayMain() {
	if logrelay.Started() {
		os.Exit(logrelay.Run())
	}
	relaySelf.Store(true)
}

// relayProgram is the program a detached launch's relay runs as
// (Options.Relay's rule): prog when set, else this program's binary if
// it called RelayMain, else childproof on $PATH.
func relayProgram(prog string) (string, error) {
	if prog != "" {
		return prog, nil
	}
	if relaySelf.Load() {
		return "/proc/self/exe", nil
	}
	if p, err := exec.LookPath("childproof"); err == nil {
		return p, nil
	}
	return "", &Error{Outcome: outcome.Usage,
		Msg:  "a detached launch needs a log relay program, and none was named: Options.Relay is empty, this program did not call launcher.RelayMain, and childproof is not on $PATH",
		Hint: "call launcher.RelayMain() first in main (a test binary: in TestMain), set Options.Relay to a childproof binary, or put childproof on $PATH"}
}

// output is the tree's stdout and stderr: the write end of a pipe that
// childproof reads itself (a goroutine in the foreground, the relay
// process when detached) and masks before the log.
type output struct {
	w     *os.File // for the tree; closed here once the tree has it
	r     *os.File // the read end (the goroutine's, or the relay's)
	probe int      // a dup of the read end, for drain's FIONREAD (-1: none)
	stats *logrelay.Stats
	relay *exec.Cmd
	done  chan struct{}
	ready chan struct{} // closed once the relay process said ready (or ended)
	// err is the tree's stderr pipe when the streams are kept apart
	// (startSplitOutput; nil: stderr is w too); done is closed once both
	// readers ended.
	err *output
}

// startOutput makes the tree's output pipe and starts its reader: in the
// foreground (relay "") a goroutine, detached the relay process (the
// program relay, relayProgram's), each writing logf
// through the set's masking sink. logf is the reader's from now on. The
// relay process carries the launch's marker as logrelay.OfEnv (never as
// MarkerVar: it is not a member of the tree). In the foreground, also
// (when not nil) gets every masked byte the log gets, in the same order,
// from the same masking pass (logrelay.Tee: its writes overlap the next
// read and log write, through a bounded queue).
func startOutput(logf *os.File, set *redact.Set, relay string, marker string, also io.Writer) (*output, error) {
	o, err := newOutput()
	if err != nil {
		return nil, err
	}
	r := o.r
	if relay == "" {
		go func() {
			if also != nil {
				logrelay.Tee(r, logf, also, set, o.stats)
			} else {
				logrelay.Copy(r, logf, set, o.stats)
			}
			r.Close()
			logf.Close()
			close(o.done)
		}()
		return o, nil
	}
	if err := o.startRelay(relay, logf, set, marker); err != nil {
		o.close()
		r.Close()
		return nil, err
	}
	r.Close() // the relay's now
	logf.Close()
	return o, nil
}

// newOutput makes a pipe for the tree's output (a big one: fewer
// wake-ups for a chatty worker) and the probe of its read end.
func newOutput() (*output, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 1<<20)
	o := &output{w: w, r: r, probe: -1, stats: &logrelay.Stats{}, done: make(chan struct{})}
	if sc, err := r.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) {
			if d, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 3); err == nil {
				o.probe = d
			}
		})
	}
	return o, nil
}

// startSplitOutput is startOutput in the foreground with the tree's
// stdout (o.w) and stderr (o.err.w) on pipes of their own, for
// Options.Stdout and Stderr: each pipe's reader masks its stream into
// logf and into also, whole lines at a time under a lock of each (so
// that the log and the follower never get half a line of each), and into its
// stream's writer (nil: none). logf is closed, and o.done closed, once
// both readers ended.
func startSplitOutput(logf *os.File, set *redact.Set, also, stdout, stderr io.Writer) (*output, error) {
	var logMu, consoleMu sync.Mutex
	o, err := newOutput()
	if err != nil {
		return nil, err
	}
	e, err := newOutput()
	if err != nil {
		o.close()
		o.r.Close()
		o.w.Close()
		return nil, err
	}
	o.err = e
	read := func(p *output, stream io.Writer, end func()) {
		log := &lineSink{mu: &logMu, w: logf}
		var to []io.Writer
		if also != nil {
			to = append(to, also)
		}
		if stream != nil {
			to = append(to, stream)
		}
		console := &lineSink{mu: &consoleMu, w: multiWriter(to)}
		logrelay.Tee(p.r, log, console, set, p.stats)
		log.flush()
		console.flush()
		p.r.Close()
		end()
	}
	go read(e, stderr, func() { close(e.done) })
	go read(o, stdout, func() {
		<-e.done
		logf.Close()
		close(o.done)
	})
	return o, nil
}

// lineSink passes whole lines on to w, holding back a line not ended
// yet (a piece of maxLine when it grows that long), each write under mu:
// two streams' sinks sharing mu never interleave within a line.
type lineSink struct {
	mu      *sync.Mutex
	w       io.Writer
	pending []byte
}

func (s *lineSink) Write(p []byte) (int, error) {
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		s.pending = append(s.pending, p...)
		if len(s.pending) >= maxLine {
			s.flush()
		}
		return len(p), nil
	}
	s.mu.Lock()
	var err error
	if len(s.pending) > 0 {
		_, err = s.w.Write(s.pending)
	}
	if _, e := s.w.Write(p[:i+1]); err == nil {
		err = e
	}
	s.mu.Unlock()
	s.pending = append(s.pending[:0], p[i+1:]...)
	return len(p), err
}

// flush passes on the line held back.
func (s *lineSink) flush() {
	if len(s.pending) == 0 {
		return
	}
	s.mu.Lock()
	s.w.Write(s.pending)
	s.mu.Unlock()
	s.pending = s.pending[:0]
}

// multiWriter writes to each of ws, ignoring their errors (each is its
// own); none: a writer that drops everything.
func multiWriter(ws []io.Writer) io.Writer {
	return writers(ws)
}

type writers []io.Writer

func (ws writers) Write(p []byte) (int, error) {
	for _, w := range ws {
		w.Write(p)
	}
	return len(p), nil
}

// startRelay starts the relay process (the program prog) on o's read
// end and logf.
func (o *output) startRelay(prog string, logf *os.File, set *redact.Set, marker string) error {
	var secrets []logrelay.Secret
	for _, sec := range set.Secrets() {
		if sec.Value != "" {
			secrets = append(secrets, logrelay.Secret{Name: sec.Name, Value: sec.Value})
		}
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer sr.Close()
	rr, rw, err := os.Pipe()
	if err != nil {
		sw.Close()
		return err
	}
	defer rw.Close()
	cmd := &exec.Cmd{Path: prog, Args: []string{logrelay.Comm}, Env: append([]string{logrelay.Env + "=" + logrelay.Mode, "GOMAXPROCS=1", logrelay.OfEnv + "=" + marker}, logrelay.RaceEnv()...),
		Stdin: sr, Stdout: rw, ExtraFiles: []*os.File{o.r, logf}, SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := withoutInherited(cmd.Start); err != nil {
		sw.Close()
		rr.Close()
		return err
	}
	o.ready = make(chan struct{})
	go func() {
		var b [8]byte
		rr.Read(b[:]) // "ready", or the end when it died
		rr.Close()
		close(o.ready)
	}()
	err = json.NewEncoder(sw).Encode(secrets)
	sw.Close()
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	o.relay = cmd
	go func() {
		cmd.Wait()
		close(o.done)
	}()
	return nil
}

// started is called once the tree has its copy of the write end.
func (o *output) started() {
	if o != nil && o.w != nil {
		o.w.Close()
		o.w = nil
	}
	if o != nil {
		o.err.started()
	}
}

// drain waits until what the tree wrote so far is in the log: the
// reader reached the pipe's end, or the pipe is empty and the reader
// waits for more. It waits up to limit for a relay process to start, then
// up to emptyWait (at most limit) for the pipe to empty.
func (o *output) drain(limit time.Duration) {
	if o == nil {
		return
	}
	o.err.drain(limit)
	if o.ready != nil {
		// The relay process's start (the pipe fills meanwhile).
		select {
		case <-o.ready:
		case <-time.After(limit):
		}
	}
	// Then until the pipe is empty, at most emptyWait: a worker that
	// never stops writing never lets it empty.
	end := time.Now().Add(min(limit, emptyWait))
	var lastQuiet quiet
	for time.Now().Before(end) {
		select {
		case <-o.done:
			return
		default:
		}
		if o.probe < 0 {
			return
		}
		n, err := unix.IoctlGetInt(o.probe, unix.TIOCINQ)
		if err == nil && n == 0 && o.relay != nil {
			// Empty: the relay has read it all. It has written it all
			// once it is seen idle twice, with no read or write between.
			q := relayQuiet(o.relay.Process.Pid)
			if !q.known {
				time.Sleep(5 * time.Millisecond) // its last write
				return
			}
			if q.idle && q == lastQuiet {
				return
			}
			lastQuiet = q
		} else if err == nil && n == 0 && o.stats.Idle() {
			return
		} else {
			lastQuiet = quiet{}
		}
		// 200 µs: time.Sleep does not return in under about a millisecond.
		unix.Nanosleep(&unix.Timespec{Nsec: int64(200 * time.Microsecond)}, nil)
	}
}

// quiet is what the kernel says of the relay process at one moment.
type quiet struct {
	known bool // its /proc files could be read
	// idle: every thread sleeps (state S): none runs or waits for a
	// core, so no goroutine of it is between a read and its write.
	idle bool
	// syscr and syscw count its read and write calls (/proc/PID/io).
	syscr, syscw uint64
}

// relayQuiet reads the relay's thread states and its read and write
// counts. The relay reads its pipe, writes what it read to the log, then
// reads again (Copy); after the last bytes it waits in the runtime's
// poller, every thread asleep. A relay idle at two looks with the same
// counts between them, with the pipe empty, has written everything the
// tree wrote before the first look: a goroutine that holds bytes it read
// runs (state R, also while it waits for a core) until it has written
// them, and a write in between changes syscw.
func relayQuiet(pid int) quiet {
	dir := "/proc/" + strconv.Itoa(pid)
	var q quiet
	b, err := os.ReadFile(dir + "/io")
	if err != nil {
		return q
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		switch k {
		case "syscr":
			q.syscr, _ = strconv.ParseUint(v, 10, 64)
		case "syscw":
			q.syscw, _ = strconv.ParseUint(v, 10, 64)
		}
	}
	tasks, err := os.ReadDir(dir + "/task")
	if err != nil || len(tasks) == 0 {
		return q
	}
	q.known, q.idle = true, true
	for _, t := range tasks {
		st, err := os.ReadFile(dir + "/task/" + t.Name() + "/stat")
		if err != nil {
			return quiet{}
		}
		// PID (COMM) STATE …: the state follows the last ')'.
		i := bytes.LastIndexByte(st, ')')
		if i < 0 || i+2 >= len(st) {
			return quiet{}
		}
		if st[i+2] != 'S' {
			q.idle = false
		}
	}
	return q
}

// emptyWait bounds how long drain waits for the pipe to empty once the
// reader runs.
const emptyWait = 250 * time.Millisecond

// finish waits, up to limit, for the reader to reach the pipe's end (the
// tree is gone: the log is complete), then drops childproof's own hold of
// the pipe. A relay process still there then (something outside the tree
// holds the pipe) is ended: it logs what the pipe holds and exits on
// logrelay.EndSignal, and is SIGKILLed if it has not a second later.
//
// In the foreground (the reader is childproof's own goroutine) limit is
// how long the reader may be seen stuck, not how long it may take: it is
// waited for as long as it makes progress (the pipe still holds output,
// or what it read is not yet in the log and the console), so that a
// loaded machine never cuts the console's last lines off while the log
// gets them; it is given up only once the pipe is empty and the reader
// idle (something outside the tree holds the write end) for limit, or
// after maxFinish in all.
func (o *output) finish(limit time.Duration) {
	if o == nil {
		return
	}
	o.started()
	if o.relay == nil {
		o.finishReader(limit)
		o.close()
		return
	}
	select {
	case <-o.done:
	case <-time.After(limit):
		if o.relay != nil {
			o.relay.Process.Signal(logrelay.EndSignal)
			select {
			case <-o.done:
			case <-time.After(time.Second):
				o.relay.Process.Kill()
				<-o.done
			}
		}
	}
	o.close()
}

// maxFinish bounds finish's wait for a foreground reader that keeps
// reading (something outside the tree writes to the pipe without end).
const maxFinish = 30 * time.Second

// finishReader waits for the foreground reader's end: up to limit once it
// is seen idle on an empty pipe, and while it makes progress up to
// maxFinish.
func (o *output) finishReader(limit time.Duration) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	hard := time.NewTimer(maxFinish)
	defer hard.Stop()
	var idleSince time.Time
	for {
		select {
		case <-o.done:
			return
		case <-hard.C:
			return
		case now := <-tick.C:
			if !o.readerIdle() {
				idleSince = time.Time{}
				continue
			}
			if idleSince.IsZero() {
				idleSince = now
			} else if now.Sub(idleSince) >= limit {
				return
			}
		}
	}
}

// readerIdle reports whether the foreground reader waits in a read of an
// empty pipe with all it read written (to the log and the console).
func (o *output) readerIdle() bool {
	if o.err != nil && !o.err.readerIdle() {
		return false
	}
	if o.probe < 0 {
		return o.stats.Idle()
	}
	n, err := unix.IoctlGetInt(o.probe, unix.TIOCINQ)
	return err == nil && n == 0 && o.stats.Idle()
}

// close drops childproof's hold of the pipe (the write end if the tree
// never got it, and the probe); the reader goes on alone.
func (o *output) close() {
	if o == nil {
		return
	}
	o.started()
	if o.probe >= 0 {
		unix.Close(o.probe)
		o.probe = -1
	}
	o.err.close()
}

// tail returns the last n lines of the launch's log once what the tree
// wrote so far is in it (up to 300 ms). When the launched root has exited
// the output is usually complete: the reader's end of the pipe (every
// writer gone) is waited for first, since an empty pipe alone does not
// say that the reader's last read is in the log yet; a process that kept
// the pipe (a daemon of the tree) leaves it to drain.
func (la *Launch) tail(n int) []string {
	if r := la.tree.root; r != nil && r.exited() && la.pipe != nil {
		select {
		case <-la.pipe.done:
		case <-time.After(300 * time.Millisecond):
			la.pipe.drain(300 * time.Millisecond)
		}
	} else {
		la.pipe.drain(300 * time.Millisecond)
	}
	return statedir.Tail(la.LogPath(), n)
}

// endRelay ends the log relay fp of a launch whose tree is gone, so that
// no relay outlives its launch. The relay ends by itself at the pipe's
// end (every holder of the write end gone): that is waited for up to
// wait, so the tree's last bytes are in the log. A relay still there
// holds a pipe that something outside the tree keeps open (a process
// that escaped it): it is sent logrelay.EndSignal, on which it logs what
// the pipe holds and exits, and SIGKILL if it has not a second later —
// each through its pidfd, only while fp still matches the recorded relay.
// It says what it did ("" when no relay was left).
func endRelay(ctx context.Context, p proc.FS, fp *verify.Fingerprint, wait time.Duration) string {
	if fp == nil {
		return ""
	}
	fd, live, _ := fp.Open(p)
	if live != verify.Alive {
		return ""
	}
	defer unix.Close(fd)
	if pidfd.Wait(ctx, fd, wait) {
		return ""
	}
	how := "ended"
	unix.PidfdSendSignal(fd, logrelay.EndSignal, nil, 0)
	if !pidfd.Wait(context.Background(), fd, time.Second) {
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		pidfd.Wait(context.Background(), fd, time.Second)
		how = "killed"
	}
	return fmt.Sprintf("log relay (pid %d) outlived the tree and was %s", fp.Pid, how)
}

// collectRelay ends, under the launch's lock (taken without waiting:
// a launch in progress is left alone), the relay of a launch a census
// found gone; it says what it did ("" for nothing).
func (st *State) collectRelay(name string, fp *verify.Fingerprint, p proc.FS) string {
	if fp == nil || fp.Check(p) != verify.Alive {
		return ""
	}
	lock, err := st.Lock(name)
	if err != nil {
		return ""
	}
	defer lock.Unlock()
	// The record may have changed before the lock was taken: only the
	// relay it names now is ended.
	if rec, err := st.Load(name); err != nil || rec.Relay == nil || !rec.Relay.Matches(*fp) {
		return ""
	}
	return endRelay(context.Background(), p, fp, 0)
}
