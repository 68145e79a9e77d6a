package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/childproof/childproof/cmd/childproof/internal/console"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
	"golang.org/x/term"
)

// What a launching command shows while it works: on a terminal, a live
// status line per launch saying what it waits for (redrawn in place, with
// the elapsed time against ready.timeout and the worker's last output
// line), and in the foreground the worker's output, given by the launch
// as its pipe's reader writes the log (prefixed with the launch's name when several launches
// share the stream). Nothing of the status line when stdout or stderr is
// not a terminal, nor with --format json (the output then goes to
// stderr, leaving stdout to the JSON object).

// launchConsole is the console of one command, shared by its launches.
type launchConsole struct {
	a         *app
	con       *console.Console
	live      bool
	out, errw io.Writer // the app's streams before the console took them
	stream    io.Writer // where worker output goes
	closeOnce sync.Once
}

// newConsole sets up the console of a launching command; prefix puts each
// output line's launch name before it (several launches). Until close,
// whatever the command prints goes around the status lines.
func (a *app) newConsole(prefix bool) *launchConsole {
	target := a.stdout
	if a.format != "text" {
		target = a.stderr
	}
	live := a.format == "text" && isTerminal(a.stdout) && isTerminal(a.stderr)
	opt := console.Options{Live: live, Color: a.color(target), Prefix: prefix}
	if f, ok := target.(*os.File); ok && live {
		opt.Width = func() int {
			w, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return w
		}
	}
	lc := &launchConsole{a: a, con: console.New(target, opt), live: live, out: a.stdout, errw: a.stderr, stream: target}
	if live {
		a.stdout = lc.con
		a.stderr = lc.con.Writer(a.stderr)
	}
	return lc
}

// close erases the status lines and gives the app its streams back (the
// launches write no more output once their Wait or Stop has returned).
func (lc *launchConsole) close() {
	lc.closeOnce.Do(func() {
		lc.con.Close()
		lc.a.stdout, lc.a.stderr = lc.out, lc.errw
	})
}

// launchView is one launch on the console.
type launchView struct {
	lc     *launchConsole
	name   string
	stream bool // print the worker's output lines (foreground)

	mu     sync.Mutex
	status *console.Status
}

// view adds launch l to the console; detach says whether the command
// returns once it is verified (its output is then not streamed).
func (lc *launchConsole) view(l *schema.Launch, detach bool) *launchView {
	// The lines it shows are the tree's output masked already (at the
	// source, with the launch's own secret set): see output.
	return &launchView{lc: lc, name: l.Name, stream: !detach}
}

// progress is the launch's Options.Progress: nil when there is nothing
// to show while it waits (a detached launch off a terminal), so that such
// a launch pays nothing for it.
func (v *launchView) progress() func(launcher.Progress) {
	if !v.stream && !v.lc.live {
		return nil
	}
	return func(p launcher.Progress) {
		v.mu.Lock()
		if v.status == nil {
			v.status = v.lc.con.Wait(v.name, p.Started, p.Timeout)
		}
		st := v.status
		v.mu.Unlock()
		st.Set(p.String(), p.Started, p.Timeout)
	}
}

// notify is the launch's Options.Notify: what it did besides launching,
// said once on stderr.
func (v *launchView) notify(msg string) {
	fmt.Fprintf(v.lc.a.stderr, "childproof: %s\n", msg)
}

// started ends the wait of a launch: the status line goes.
func (v *launchView) started(*launcher.Launch) {
	v.mu.Lock()
	st := v.status
	v.status = nil
	v.mu.Unlock()
	if st != nil {
		st.Done()
	}
}

// output is the launch's Options.Output: in the foreground every line of
// the worker's output goes to the console (the bytes the log gets, masked
// at the source with the launch's own secret set, in the same pass: no
// second read of the log); detached, only the last line shows, on the
// status line, and nil off a terminal (nothing to show).
func (v *launchView) output() io.Writer {
	if !v.stream && !v.lc.live {
		return nil
	}
	return viewOutput{v}
}

// viewOutput writes a launch's output lines (Options.Output: whole lines)
// to the console.
type viewOutput struct{ v *launchView }

func (o viewOutput) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if o.v.stream {
		o.v.lc.con.OutputBlock(o.v.name, p)
		return len(p), nil
	}
	body := p[:len(p)-1]
	o.v.lc.con.Last(o.v.name, string(body[bytes.LastIndexByte(body, '\n')+1:]))
	return len(p), nil
}
