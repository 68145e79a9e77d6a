package console

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/childproof/childproof/launcher"
)

// View is one launch on a Console, fed by package launcher while the
// launch starts and runs (Attach): while Start waits for the worker, a
// status line saying what it waits for (Options.Live only); with stream
// (a foreground launch), every line of the worker's output; without, on a
// live Console, the last output line on the status line. The lines are the
// tree's output as the launch's log gets them, masked at the source with
// the launch's own secret set. A View is safe for concurrent use.
type View struct {
	c      *Console
	name   string
	stream bool

	mu     sync.Mutex
	status *Status
}

// View adds the launch name to c; stream says whether its output lines
// are shown (a foreground launch) or only the last one, on its status line.
func (c *Console) View(name string, stream bool) *View {
	return &View{c: c, name: name, stream: stream}
}

// Attach sets o's Progress and Output to the view's: nil where the view
// has nothing to show (a detached launch off a terminal), so that such a
// launch pays nothing for it.
func (v *View) Attach(o *launcher.Options) {
	o.Progress, o.Output = v.progress(), v.output()
}

// progress is the launch's Options.Progress: its status line, drawn at the
// first report and redrawn at each.
func (v *View) progress() func(launcher.Progress) {
	if !v.stream && !v.c.opt.Live {
		return nil
	}
	return func(p launcher.Progress) {
		p.Last = ReadyWords(p.Last)
		v.mu.Lock()
		if v.status == nil {
			v.status = v.c.Wait(v.name, p.Started, p.Timeout)
		}
		st := v.status
		v.mu.Unlock()
		st.Set(p.String(), p.Started, p.Timeout)
	}
}

// ReadyWords is what, why a launch is not ready yet (Progress.Last, the
// tail of a not-ready problem), with the spec's readiness fields that the
// launcher names in Go (Ready.Exec, Ready.Log) named as the spec does.
func ReadyWords(what string) string {
	if rest, ok := strings.CutPrefix(what, "Ready.Exec"); ok {
		return "ready.exec" + rest
	}
	if re, ok := strings.CutPrefix(what, "no line of its output matched Ready.Log "); ok {
		return "no line of its output matched ready { log = " + re + " }"
	}
	return what
}

// Started ends the wait of the launch (Start returned): its status line
// goes.
func (v *View) Started() {
	v.mu.Lock()
	st := v.status
	v.status = nil
	v.mu.Unlock()
	if st != nil {
		st.Done()
	}
}

// output is the launch's Options.Output (whole lines): in the foreground
// every line goes to the console (the bytes the log gets, in the same
// pass: no second read of the log); detached, only the last line shows,
// on the status line.
func (v *View) output() io.Writer {
	if !v.stream && !v.c.opt.Live {
		return nil
	}
	return viewOutput{v}
}

type viewOutput struct{ v *View }

func (o viewOutput) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if o.v.stream {
		o.v.c.OutputBlock(o.v.name, p)
		return len(p), nil
	}
	body := p[:len(p)-1]
	o.v.c.Last(o.v.name, string(body[bytes.LastIndexByte(body, '\n')+1:]))
	return len(p), nil
}
