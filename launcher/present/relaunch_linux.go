package present

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// HowText is how d's name differs as history --diff A B says it:
// "changed", "only in round A" or "only in round B" (a and b the rounds
// compared); "" for an unknown How.
func HowText(d *launcher.EnvDiff, a, b int) string {
	switch d.How {
	case launcher.Changed:
		return "changed"
	case launcher.OnlyInA:
		return fmt.Sprintf("only in round %d", a)
	case launcher.OnlyInB:
		return fmt.Sprintf("only in round %d", b)
	}
	return ""
}

// OverrideText says where d's name is a --set override in the rounds
// compared, "--set in round 4; --set=<secret> in round 2 (carried forward
// into round 5)": with the value when o.ShowValues is set and the value
// is kept and not secret, and with the round that set it when that is an
// earlier one. It is "" when the name is no override.
func OverrideText(d *launcher.EnvDiff, o TextOptions) string {
	var where []string
	for _, ov := range d.Overrides {
		v := ""
		if ov.Secret {
			v = "=<secret>"
		} else if o.ShowValues && ov.Value != nil {
			v = "=" + *ov.Value
		}
		// Name the round that set it: a carried-forward --set was set in
		// an earlier round, not in the one compared.
		if ov.Round == 0 || ov.Round == ov.In {
			where = append(where, fmt.Sprintf("--set%s in round %d", v, ov.In))
		} else {
			where = append(where, fmt.Sprintf("--set%s in round %d (carried forward into round %d)", v, ov.Round, ov.In))
		}
	}
	return strings.Join(where, "; ")
}

// WriteDelta writes d as relaunch's text report ends, one "  delta:   …"
// line per changed, carried, unchanged or dropped name and a last line
// saying whether the delta is exactly the declared names, in one Write.
// prev is the recorded worker's launch the delta is measured against
// (nil: not named). A nil d writes nothing.
func WriteDelta(w io.Writer, d *relaunch.Delta, prev *launcher.Record) {
	if d == nil {
		return
	}
	var b bytes.Buffer
	against := ""
	if prev != nil {
		against = fmt.Sprintf(" (against the recorded worker, pid %d)", prev.Worker.Pid)
	}
	if d.Ranks > 1 {
		against = fmt.Sprintf(" (each of the %d workers against the recorded worker of its rank)", d.Ranks)
	}
	for _, c := range d.Changed {
		how := "NOT declared"
		switch {
		case slices.Contains(d.Volatile, c.Name):
			how = "volatile (set anew by the launched tree on every launch; not checked)"
		case slices.Contains(d.Dropped, c.Name):
			how = "dropped (--unset, or not in the round replayed)"
		case c.Declared:
			how = "declared with --set"
		}
		fmt.Fprintf(&b, "  delta:   %s %s, %s\n", c.Name, c.How, how)
	}
	for _, n := range d.Carried {
		fmt.Fprintf(&b, "  delta:   %s unchanged, declared with --set as in the recorded launch\n", n)
	}
	for _, n := range d.Unchanged {
		fmt.Fprintf(&b, "  delta:   %s unchanged, although declared with --set\n", n)
	}
	if len(d.Forward) > 0 {
		fmt.Fprintf(&b, "  delta:   carried forward, unchanged: %s\n", strings.Join(d.Forward, ", "))
	}
	for _, n := range d.Dropped {
		if !slices.ContainsFunc(d.Changed, func(c relaunch.DeltaName) bool { return c.Name == n }) {
			fmt.Fprintf(&b, "  delta:   %s dropped, unchanged on the worker (its value without the override is the same)\n", n)
		}
	}
	if d.Argv != "" {
		how := "declared with --var"
		if d.ArgvUndeclared {
			how = "NOT declared (no --var changed it)"
		}
		fmt.Fprintf(&b, "  delta:   the command line changed: %s, %s\n", d.Argv, how)
	}
	if d.OK() {
		if len(d.Changed) == 0 && d.Argv == "" {
			fmt.Fprintf(&b, "  delta:   none: the worker's environment is identical%s\n", against)
		} else {
			changed := make([]string, 0, len(d.Changed))
			for _, c := range d.Changed {
				if !slices.Contains(d.Volatile, c.Name) {
					changed = append(changed, c.Name)
				}
			}
			what := listOrNone(changed)
			switch {
			case d.Argv != "" && len(changed) == 0:
				what = "the command line"
			case d.Argv != "":
				what += " and the command line"
			}
			fmt.Fprintf(&b, "  delta:   exactly %s changed on the worker%s\n", what, against)
			if len(d.Volatile) > 0 {
				fmt.Fprintf(&b, "  delta:   volatile, not checked: %s\n", strings.Join(d.Volatile, ", "))
			}
		}
	}
	w.Write(b.Bytes())
}

// RollbackText says what relaunch --rollback of the launch name did, as relaunch
// reports it after "childproof: relaunch: ": nothing to bring back, the
// round that is back and its worker, or the rollback's error. It is ""
// when there is nothing to say (not Tried: relaunch.Options.Rollback
// unset, or the relaunch did not fail).
func RollbackText(rb *relaunch.RollbackResult, name string) string {
	switch {
	case !rb.Tried:
		return ""
	case rb.From == 0:
		return "--rollback: the previous launch was not stopped: nothing to bring back"
	case rb.Launch != nil:
		return fmt.Sprintf("--rollback: round %d is back as round %d: worker pid %d verified, detached (childproof history %s; stop it with: childproof stop %s)",
			rb.From, rb.Launch.Round(), rb.Launch.Pid(), name, name)
	case rb.Err != nil:
		return fmt.Sprintf("--rollback of round %d failed too: %v", rb.From, rb.Err)
	}
	return ""
}

// EnvFileChangeText says what c did to its env file, as relaunch reports it after
// "childproof: relaunch: " (after "childproof: warning: relaunch: " for
// EnvFileKept), "NAME: set in FILE:LINE (…)"; name is the launch's name
// (its history keeps an edited file's old value) and o.Dir shows FILE
// relative to it. It is "" for an unknown How.
func EnvFileChangeText(c *relaunch.EnvFileChange, name string, o TextOptions) string {
	at := fmt.Sprintf("%s:%d", o.path(c.File), c.Line)
	switch c.How {
	case relaunch.EnvFileEdited:
		return fmt.Sprintf("%s: set in %s (the old value, %s, is in the round: childproof history %s)", c.Name, at, verify.ShortDigest(c.OldDigest), name)
	case relaunch.EnvFileAppended:
		return fmt.Sprintf("%s: appended to %s (the file did not assign it)", c.Name, at)
	case relaunch.EnvFileRestored:
		return fmt.Sprintf("%s: %s put back as it was before the edit, byte for byte", c.Name, at)
	case relaunch.EnvFileKept:
		return fmt.Sprintf("%s: %s keeps the edited value: the old value of a secret was not kept; edit the file by hand", c.Name, at)
	}
	return ""
}

// RelaunchOutput is what `childproof relaunch` prints on stdout: the new
// worker's report, its round, the delta against the recorded worker and
// what became of the previous launch. Its JSON is run's object
// (RunOutput) with "delta" (null when the relaunch failed before the new
// worker was verified), "previous" and "env_files" added; WriteText is
// the text. It is plain data: safe for concurrent use while nothing changes it.
type RelaunchOutput struct {
	*verify.Report
	// Round is the new round's number (relaunch.Result.Round); 0 (left
	// out) before there is one.
	Round int `json:"round,omitempty"`
	// Delta is relaunch.Result.Delta; nil before the new worker was
	// verified.
	Delta *relaunch.Delta `json:"delta"`
	// Previous is the recorded launch the relaunch replaced; nil (left
	// out) when none was read.
	Previous *PreviousLaunch `json:"previous,omitempty"`
	// EnvFiles are relaunch.Result.EnvFiles (left out when none).
	EnvFiles []relaunch.EnvFileChange `json:"env_files,omitempty"`
}

// PreviousLaunch is the launch a relaunch replaced, as its output names
// it. It is plain data: safe for concurrent use while nothing changes it.
type PreviousLaunch struct {
	// Worker is the recorded worker the delta is measured against.
	Worker verify.Fingerprint `json:"worker"`
	// Stopped is what the relaunch did to it (StopResult.Message); ""
	// (left out) when its record was already marked stopped.
	Stopped string `json:"stopped,omitempty"`
}

// NewRelaunchOutput is relaunch's output for rep, the report of the new
// worker (the *Error's Report when Relaunch failed): rep with r's round,
// delta, previous launch and env file changes. A nil r (Relaunch failed
// before it read the record) gives rep alone, with a null delta.
func NewRelaunchOutput(r *relaunch.Result, rep *verify.Report) *RelaunchOutput {
	out := &RelaunchOutput{Report: rep}
	if r == nil {
		return out
	}
	out.Round, out.Delta, out.EnvFiles = r.Round, r.Delta, r.EnvFiles
	if r.Previous != nil {
		out.Previous = &PreviousLaunch{Worker: r.Previous.Worker}
		if r.Stopped != nil {
			out.Previous.Stopped = r.Stopped.Message
		}
	}
	return out
}

// WriteText writes o as relaunch's text: the report
// (verify.Report.WriteText) to report, then — once there is a Delta — its
// lines (WriteDelta, against Previous's worker) and the round line
// "  round:   N (childproof history NAME)" to w. report is where the
// report's lines go (nil: w); the CLI passes a writer over w that paints
// the report's words, and leaves the delta's unpainted.
func (o *RelaunchOutput) WriteText(w, report io.Writer) {
	if report == nil {
		report = w
	}
	o.Report.WriteText(report)
	if o.Delta == nil {
		return
	}
	var prev *launcher.Record
	if o.Previous != nil {
		prev = &launcher.Record{Worker: o.Previous.Worker}
	}
	WriteDelta(w, o.Delta, prev)
	writeRoundLine(w, o.Round, o.Report.Name)
}

// RelaunchNote is a line relaunch says on stderr about what it did
// besides the new launch (RelaunchNotes). It is plain data: safe for concurrent use while nothing changes it.
type RelaunchNote struct {
	// Warning is set for a line that needs a look (the CLI prints it after
	// "childproof: warning: relaunch: "; else after "childproof:
	// relaunch: ").
	Warning bool
	// Text is the line, without a prefix or a newline.
	Text string
}

// RelaunchNotes are the lines relaunch says on stderr once Relaunch returns, in
// order: what became of the previous launch (StopResult.Message), each env
// file change (EnvFileChangeText; one that kept an edited value is a
// Warning) and, when a failed relaunch put its edits back, that it did.
// name is the launch's name and o shows the env files' paths. A nil r has
// none.
func RelaunchNotes(r *relaunch.Result, name string, o TextOptions) []RelaunchNote {
	if r == nil {
		return nil
	}
	var notes []RelaunchNote
	if r.Stopped != nil {
		notes = append(notes, RelaunchNote{Text: r.Stopped.Message})
	}
	for _, c := range r.EnvFiles {
		if t := EnvFileChangeText(&c, name, o); t != "" {
			notes = append(notes, RelaunchNote{Warning: c.How == relaunch.EnvFileKept, Text: t})
		}
	}
	if r.EnvFilesRestored {
		notes = append(notes, RelaunchNote{Text: "the env file changes were undone (the relaunch failed)"})
	}
	return notes
}

// SpecChangedText is relaunch's warning for b.SpecChanged, after
// "childproof: warning: ": l's spec file (relative to o.Dir) changed since
// the recorded launch of l.Name, so whatever the edit changes on the worker
// is an unexpected delta. It is "" when the spec did not change.
func SpecChangedText(b relaunch.Base, l *spec.Launch, o TextOptions) string {
	if !b.SpecChanged {
		return ""
	}
	return fmt.Sprintf("%s changed since the recorded launch of %s: any change it makes on the worker is an unexpected delta", o.path(l.SpecPath), l.Name)
}

// listOrNone is s joined with ", ", or "none" for none.
func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
