package main

import (
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
	} else if target == a.stdout {
		// The worker's output and childproof's notices (a forwarded
		// signal) share a pipe or a file as often as a terminal: a
		// notice written while a long line is still being written would
		// land inside it (a write over PIPE_BUF is not atomic), so stderr
		// waits for the console's write as on a terminal.
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

// view adds launch l to the console (console.View); detach says whether
// the command returns once it is verified (its output is then not
// streamed). The lines it shows are the tree's output masked already (at
// the source, with the launch's own secret set).
func (lc *launchConsole) view(l *schema.Launch, detach bool) *console.View {
	return lc.con.View(l.Name, !detach)
}

// notify is a launch's Options.Notify: what it did besides launching,
// said once on stderr.
func (a *app) notify(msg string) {
	fmt.Fprintf(a.stderr, "childproof: %s\n", msg)
}

// replaced is a launch's Options.Replaced: on_stale = "replace" stopped
// the previous launch.
func (a *app) replaced(r *launcher.Replaced) {
	a.notify(r.Say(`on_stale = "replace"`))
}
