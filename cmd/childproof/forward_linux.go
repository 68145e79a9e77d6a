package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher"
)

// foregroundStopGrace is how long a foreground worker has after a
// forwarded SIGINT or SIGTERM, and then after SIGTERM, before the next
// step: the default of 'stop --timeout'.
var foregroundStopGrace = 10 * time.Second

// signalForwarder forwards the caller's signals to a foreground launch's
// process group, as docker run and up do, and makes sure a stop request
// stops it: the first SIGINT or SIGTERM is forwarded as it is (and said,
// since a worker that ignores it shows nothing); a second one, or the
// grace after the first, escalates to SIGTERM, and the next (or the grace
// again) to SIGKILL. SIGHUP is forwarded and nothing more.
type signalForwarder struct {
	stderr io.Writer
	name   string
	la     *launcher.Launch
	// onStop, if set, is called at each SIGINT or SIGTERM (supervision
	// with a restart policy: no restart after a stop request).
	onStop func()
	step   int // 0 nothing asked; 1 forwarded; 2 SIGTERM sent; 3 SIGKILL sent
	timer  *time.Timer
}

// run forwards sigs until done is closed.
func (f *signalForwarder) run(sigs <-chan os.Signal, done <-chan struct{}) {
	var tick <-chan time.Time
	for {
		select {
		case s := <-sigs:
			sig := s.(syscall.Signal)
			if sig == syscall.SIGHUP {
				f.la.Signal(sig)
				continue
			}
			if f.onStop != nil {
				f.onStop()
			}
			tick = f.next(sig)
		case <-tick:
			tick = f.next(0)
		case <-done:
			if f.timer != nil {
				f.timer.Stop()
			}
			return
		}
	}
}

// next takes the next step of a stop: sig is the caller's signal, 0 when
// the grace ran out. It returns the channel of the next step's grace.
func (f *signalForwarder) next(sig syscall.Signal) <-chan time.Time {
	if f.timer != nil {
		f.timer.Stop()
	}
	f.step++
	pid := f.la.Pid()
	switch {
	case f.step == 1:
		f.la.Signal(sig)
		fmt.Fprintf(f.stderr, "childproof: forwarded %s to %s (worker pid %d); again (or in %s) to stop it: SIGTERM, then SIGKILL\n", sigName(sig), f.name, pid, foregroundStopGrace)
	case f.step == 2:
		f.la.Signal(syscall.SIGTERM)
		fmt.Fprintf(f.stderr, "childproof: %s (worker pid %d) still runs: sent SIGTERM; SIGKILL %s\n", f.name, pid, f.when())
	default:
		f.la.Signal(syscall.SIGKILL)
		fmt.Fprintf(f.stderr, "childproof: %s (worker pid %d) still runs: sent SIGKILL\n", f.name, pid)
		return nil
	}
	f.timer = time.NewTimer(foregroundStopGrace)
	return f.timer.C
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
