package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher"
)

// foregroundStopGrace is how long a foreground worker has after a
// forwarded SIGINT or SIGTERM, and then after SIGTERM, before the next
// step (run), and each launch after SIGTERM before SIGKILL when up stops
// them (group.Supervision.WaitDelay): the default of 'stop --timeout'.
var foregroundStopGrace = launcher.DefaultStopGrace

// signalForwarder forwards the caller's signals to a foreground launch's
// process group, as docker run and up do, and makes sure a stop request
// stops it: the first SIGINT or SIGTERM is forwarded as it is (and said,
// since a worker that ignores it shows nothing); a second one, or the
// grace after the first, escalates to SIGTERM, and the next (or the grace
// again) to SIGKILL. SIGHUP is forwarded and nothing more.
type signalForwarder struct {
	stderr io.Writer
	name   string
	// signal signals the launch's process group; pid is its worker's pid.
	signal func(syscall.Signal)
	pid    func() int

	mu     sync.Mutex
	step   int // 0 nothing asked; 1 forwarded; 2 SIGTERM sent; 3 SIGKILL sent
	timer  *time.Timer
	closed bool
}

// forwarderOf is a signalForwarder to la.
func (a *app) forwarderOf(la *launcher.Launch) *signalForwarder {
	return &signalForwarder{stderr: a.stderr, name: la.Spec.Name, signal: la.Signal, pid: la.Pid}
}

// run forwards sigs until done is closed.
func (f *signalForwarder) run(sigs <-chan os.Signal, done <-chan struct{}) {
	defer f.close()
	relaySignals(sigs, f.signal, f.next, done)
}

// next takes the next step of a stop: sig is the caller's signal, 0 when
// the grace ran out.
func (f *signalForwarder) next(sig syscall.Signal) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if f.timer != nil {
		f.timer.Stop()
	}
	f.step++
	pid := f.pid()
	switch {
	case f.step == 1:
		f.signal(sig)
		fmt.Fprintf(f.stderr, "childproof: forwarded %s to %s (worker pid %d); again (or in %s) to stop it: SIGTERM, then SIGKILL\n", sigName(sig), f.name, pid, foregroundStopGrace)
	case f.step == 2:
		f.signal(syscall.SIGTERM)
		fmt.Fprintf(f.stderr, "childproof: %s (worker pid %d) still runs: sent SIGTERM; SIGKILL %s\n", f.name, pid, f.when())
	default:
		f.signal(syscall.SIGKILL)
		fmt.Fprintf(f.stderr, "childproof: %s (worker pid %d) still runs: sent SIGKILL\n", f.name, pid)
		return
	}
	f.timer = time.AfterFunc(foregroundStopGrace, func() { f.next(0) })
}

// close ends the forwarding: no step is taken after it returns.
func (f *signalForwarder) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if f.timer != nil {
		f.timer.Stop()
	}
}

func (f *signalForwarder) when() string {
	return fmt.Sprintf("at the next Ctrl-C or in %s", foregroundStopGrace)
}

// sigName is "SIGINT" for syscall.SIGINT.
func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
