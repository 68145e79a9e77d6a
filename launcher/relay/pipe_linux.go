package relay

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/logrelay"
	"github.com/childproof/childproof/internal/noinherit"
	"github.com/childproof/childproof/launcher/output"
	"github.com/childproof/childproof/redact"
)

// Pipe is the tree's stdout and stderr: the write end of a pipe that
// childproof reads itself (a goroutine in the foreground, the relay
// process when detached) and masks before the log. It is not safe for
// concurrent use: the launch that made it drives it (its reader runs on
// its own).
type Pipe struct {
	w     *os.File // for the tree; closed here once the tree has it
	r     *os.File // the read end (the goroutine's, or the relay's)
	probe int      // a dup of the read end, for Drain's FIONREAD (-1: none)
	stats *logrelay.Stats
	relay *exec.Cmd
	done  chan struct{}
	ready chan struct{} // closed once the relay process said ready (or ended)
	// err is the tree's stderr pipe when the streams are kept apart
	// (StartSplit; nil: stderr is w too); done is closed once both
	// readers ended.
	err *Pipe
}

// Start makes the tree's output pipe and starts its reader: in the
// foreground (relay "") a goroutine, detached the relay process (the
// program relay, Program's), each writing logf
// through the set's masking sink. logf is the reader's from now on. The
// relay process carries the launch's marker as logrelay.OfEnv (never as
// MarkerVar: it is not a member of the tree). In the foreground, also
// (when not nil) gets every masked byte the log gets, in the same order,
// from the same masking pass (logrelay.Tee: its writes overlap the next
// read and log write, through a bounded queue).
func Start(logf *os.File, set *redact.Set, relay string, marker string, also io.Writer) (*Pipe, error) {
	o, err := newPipe(relay == "")
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
		o.Close()
		r.Close()
		return nil, err
	}
	r.Close() // the relay's now
	logf.Close()
	return o, nil
}

// newPipe makes a pipe for the tree's output (a big one: fewer
// wake-ups for a chatty worker) and the probe of its read end. The read
// end goes into the runtime's poller when poll is set (a goroutine of
// ours reads it); the write end, the tree's, never does: a registration
// there cost five system calls and woke the poller's thread (a pipe's
// write end is ready at once), and os/exec made it blocking again for
// the tree. Both are close-on-exec, as os.Pipe's.
func newPipe(poll bool) (*Pipe, error) {
	r, w, err := rawPipe()
	if err != nil {
		return nil, err
	}
	unix.FcntlInt(uintptr(w), unix.F_SETPIPE_SZ, 1<<20)
	probe, err := unix.FcntlInt(uintptr(r), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		probe = -1
	}
	return &Pipe{w: os.NewFile(uintptr(w), "|1"), r: readEnd(r, poll), probe: probe, stats: &logrelay.Stats{}, done: make(chan struct{})}, nil
}

// rawPipe makes a pipe, both ends close-on-exec and blocking: os.Pipe
// without its poller set-up, for ends that only a child process uses or
// that are written once (an os.NewFile of a blocking descriptor stays
// out of the poller). Its error is os.Pipe's.
func rawPipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, os.NewSyscallError("pipe2", err)
	}
	return p[0], p[1], nil
}

// readEnd makes fd, a pipe's read end from rawPipe, an *os.File: in the
// runtime's poller when poll is set (a goroutine of ours waits on it), as
// os.Pipe's; one the poller refused is made blocking again (as os.Pipe
// does), read by a thread of its own. Without poll it stays blocking and
// out of the poller (an end handed to a child process).
func readEnd(fd int, poll bool) *os.File {
	if poll {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, unix.O_NONBLOCK); err != nil {
			poll = false
		}
	}
	f := os.NewFile(uintptr(fd), "|0")
	if poll && f.SetReadDeadline(time.Time{}) != nil {
		unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0)
	}
	return f
}

// StartSplit is Start in the foreground with the tree's
// stdout (o.w) and stderr (o.err.w) on pipes of their own, for
// Options.Stdout and Stderr: each pipe's reader masks its stream into
// logf and into also, whole lines at a time under a lock of each (so
// that the log and the follower never get half a line of each), and into its
// stream's writer (nil: none). logf is closed, and o.done closed, once
// both readers ended.
func StartSplit(logf *os.File, set *redact.Set, also, stdout, stderr io.Writer) (*Pipe, error) {
	var logMu, consoleMu sync.Mutex
	o, err := newPipe(true)
	if err != nil {
		return nil, err
	}
	e, err := newPipe(true)
	if err != nil {
		o.Close()
		o.r.Close()
		o.w.Close()
		return nil, err
	}
	o.err = e
	read := func(p *Pipe, stream io.Writer, end func()) {
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
// yet (a piece of output.MaxLine when it grows that long), each write under mu:
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
		if len(s.pending) >= output.MaxLine {
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
func (o *Pipe) startRelay(prog string, logf *os.File, set *redact.Set, marker string) error {
	var secrets []logrelay.Secret
	for _, sec := range set.Secrets() {
		if sec.Value != "" {
			secrets = append(secrets, logrelay.Secret{Name: sec.Name, Value: sec.Value})
		}
	}
	// The relay's stdin (the secrets, written once) and stdout (its
	// "ready", which a goroutine waits for in the poller).
	srfd, swfd, err := rawPipe()
	if err != nil {
		return err
	}
	sr, sw := os.NewFile(uintptr(srfd), "|0"), os.NewFile(uintptr(swfd), "|1")
	defer sr.Close()
	rrfd, rwfd, err := rawPipe()
	if err != nil {
		sw.Close()
		return err
	}
	rr, rw := readEnd(rrfd, true), os.NewFile(uintptr(rwfd), "|1")
	defer rw.Close()
	cmd := &exec.Cmd{Path: prog, Args: []string{logrelay.Comm}, Env: append([]string{logrelay.Env + "=" + logrelay.Mode, "GOMAXPROCS=1", logrelay.OfEnv + "=" + marker}, logrelay.RaceEnv()...),
		Stdin: sr, Stdout: rw, ExtraFiles: []*os.File{o.r, logf}, SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := noinherit.Run(cmd.Start); err != nil {
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

// Started is called once the tree has its copy of the write end.
func (o *Pipe) Started() {
	if o != nil && o.w != nil {
		o.w.Close()
		o.w = nil
	}
	if o != nil {
		o.err.Started()
	}
}

// Drain waits until what the tree wrote so far is in the log: the
// reader reached the pipe's end, or the pipe is empty and the reader
// waits for more. It waits up to limit for a relay process to start, then
// up to emptyWait (at most limit) for the pipe to empty.
func (o *Pipe) Drain(limit time.Duration) {
	if o == nil {
		return
	}
	o.err.Drain(limit)
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
		ts := unix.NsecToTimespec(int64(200 * time.Microsecond))
		unix.Nanosleep(&ts, nil)
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

// emptyWait bounds how long Drain waits for the pipe to empty once the
// reader runs.
const emptyWait = 250 * time.Millisecond

// Finish waits, up to limit, for the reader to reach the pipe's end (the
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
func (o *Pipe) Finish(limit time.Duration) {
	if o == nil {
		return
	}
	o.Started()
	if o.relay == nil {
		o.finishReader(limit)
		o.Close()
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
	o.Close()
}

// maxFinish bounds Finish's wait for a foreground reader that keeps
// reading (something outside the tree writes to the pipe without end).
const maxFinish = 30 * time.Second

// finishReader waits for the foreground reader's end: up to limit once it
// is seen idle on an empty pipe, and while it makes progress up to
// maxFinish.
func (o *Pipe) finishReader(limit time.Duration) {
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
func (o *Pipe) readerIdle() bool {
	if o.err != nil && !o.err.readerIdle() {
		return false
	}
	if o.probe < 0 {
		return o.stats.Idle()
	}
	n, err := unix.IoctlGetInt(o.probe, unix.TIOCINQ)
	return err == nil && n == 0 && o.stats.Idle()
}

// Close drops childproof's hold of the pipe (the write end if the tree
// never got it, and the probe); the reader goes on alone.
func (o *Pipe) Close() {
	if o == nil {
		return
	}
	o.Started()
	if o.probe >= 0 {
		unix.Close(o.probe)
		o.probe = -1
	}
	o.err.Close()
}

// Stdout is the write end the tree gets as its stdout (nil once Started).
func (o *Pipe) Stdout() *os.File { return o.w }

// Stderr is the write end the tree gets as its stderr: the stderr pipe's
// when StartSplit keeps the streams apart, else Stdout.
func (o *Pipe) Stderr() *os.File {
	if o.err != nil {
		return o.err.w
	}
	return o.w
}

// Done is closed once the reader reached the pipe's end (the relay
// process ended).
func (o *Pipe) Done() <-chan struct{} { return o.done }

// RelayProcess is the relay process reading the pipe; nil in the
// foreground.
func (o *Pipe) RelayProcess() *os.Process {
	if o == nil || o.relay == nil {
		return nil
	}
	return o.relay.Process
}
