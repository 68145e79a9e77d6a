package verify

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ExplainOutput is the JSON form of an Explanation: the documented output
// of `childproof explain --format json` (Explanation.JSON builds it). It is
// plain data, safe for concurrent use while no one changes it.
type ExplainOutput struct {
	// Launch is what was explained: a launch's name, or "pid PID".
	Launch string `json:"launch"`
	// Intended maps each name with an intended value to its keyed
	// digest (Explanation.Intended); never nil.
	Intended map[string]string `json:"intended"`
	// FirstDiffers answers, for each name with an intended value, which
	// process from the root down to the worker first lacks it (null:
	// none does); never nil.
	FirstDiffers map[string]*ExplainRow `json:"first_differs"`
	// Unreadable names the names the worker's row cannot judge (verify's
	// env-unreadable), in the Explanation's order; never nil.
	Unreadable []string `json:"unreadable_on_worker"`
	// Diverged maps each name to the exec'd members off the path to the
	// worker that hold another value than the intended one
	// (Judgement.Diverged); names without one are left out.
	Diverged map[string][]ExplainRow `json:"diverged,omitempty"`
	// Processes are the Explanation's rows.
	Processes []ExplainRow `json:"processes"`
	// Note is FrozenNote.
	Note string `json:"note"`
	// ArgvNote is Explanation.ArgvNote: how argv were masked by guess
	// (no record names the processes); left out when they were not.
	ArgvNote string `json:"argv_note,omitempty"`
}

// JSON returns the JSON form of x, titled title (ExplainOutput.Launch).
func (x *Explanation) JSON(title string) ExplainOutput {
	first := map[string]*ExplainRow{}
	unjudged := []string{}
	var diverged map[string][]ExplainRow
	for _, j := range x.Judgements {
		if j.Unreadable {
			unjudged = append(unjudged, j.Name)
		}
		if j.Intended != "" {
			first[j.Name] = j.FirstDiffers
		}
		if len(j.Diverged) > 0 {
			if diverged == nil {
				diverged = map[string][]ExplainRow{}
			}
			diverged[j.Name] = j.Diverged
		}
	}
	return ExplainOutput{Launch: title, Intended: x.Intended(), FirstDiffers: first, Unreadable: unjudged, Diverged: diverged, Processes: x.Rows, Note: FrozenNote, ArgvNote: x.ArgvNote}
}

// WriteText writes the human form of x, titled title: a launch's name, or
// "pid PID". Each name gets a header "NAME in TITLE", with the intended
// value's short digest when there is one. One line per row follows, with
// the role, pid, comm, the name's state and the argv cut at 60 bytes. A
// row is marked where the state changes, and where the worker differs or
// cannot be judged. When a value is intended, the name ends with the
// answer: where the path from the root to the worker first differs from
// it. The text ends with FrozenNote.
func (x *Explanation) WriteText(w io.Writer, title string) {
	for i, j := range x.Judgements {
		n := j.Name
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s in %s", n, title)
		if j.Intended != "" {
			fmt.Fprintf(w, " (intended: %s)", ShortDigest(j.Intended))
		}
		fmt.Fprintln(w)
		for _, r := range x.Rows {
			ev := r.Vars[i]
			state := string(ev.State)
			if ev.Value != nil {
				// A long value is cut: the column stays a column.
				state += " " + Clip(strconv.Quote(*ev.Value), 26)
			} else if ev.Digest != "" {
				state += " " + ShortDigest(ev.Digest)
			}
			if ev.Evidence == EvidenceExec {
				state += " (at exec)"
			}
			mark := ""
			if ev.Changed {
				mark = "   <- changes here"
			}
			switch {
			case j.Intended != "" && r.Role == RoleWorker && j.Unreadable:
				mark += "   <- cannot be judged (env-unreadable)"
			case r.Role == RoleWorker && j.WorkerDiffers:
				mark += "   <- NOT the intended value"
			case slices.ContainsFunc(j.Diverged, func(d ExplainRow) bool { return d.Pid == r.Pid }):
				mark += "   <- NOT the intended value (env-diverged)"
			case r.Helper:
				mark += "   (helper: forked, not exec'd)"
			}
			argv := Clip(strings.Join(r.Argv, " "), 61)
			fmt.Fprintf(w, "  %-10s pid %-7d %-16s %-36s %s%s\n", r.Role, r.Pid, Clip(r.Comm, 16), state, argv, mark)
		}
		for _, r := range j.Diverged {
			fmt.Fprintf(w, "  answer:  %s differs from the intended value on pid %d (%s), a member of the launched tree (env-diverged)\n", n, r.Pid, r.Comm)
		}
		switch {
		case j.Intended == "":
		case j.FirstDiffers != nil:
			r := j.FirstDiffers
			fmt.Fprintf(w, "  answer:  %s first differs from the intended value at pid %d (%s, %s)\n", n, r.Pid, r.Role, r.Comm)
		case j.Unreadable:
			fmt.Fprintf(w, "  answer:  %s cannot be judged on the worker: it rewrote its environment block and no exec-time evidence holds (env-unreadable, as verify says); the readable processes above it have the intended value\n", n)
		case len(j.UnreadableRows) > 0:
			var un []string
			for _, r := range j.UnreadableRows {
				un = append(un, fmt.Sprintf("pid %d (%s)", r.Pid, r.Comm))
			}
			fmt.Fprintf(w, "  answer:  %s has the intended value on every readable process from the root to the worker; %s cannot be read (it rewrote its environment block and no exec-time evidence holds)\n", n, strings.Join(un, ", "))
		case len(j.Diverged) > 0:
			fmt.Fprintf(w, "  answer:  %s has the intended value on the path from the root to the worker, not on every member of the tree\n", n)
		default:
			fmt.Fprintf(w, "  answer:  %s has the intended value on every process from the root to the worker\n", n)
		}
	}
	if x.ArgvNote != "" {
		fmt.Fprintf(w, "note: %s\n", x.ArgvNote)
	}
	fmt.Fprintf(w, "note: %s\n", FrozenNote)
}

// Clip cuts s to at most n runes for a table column, ending with "…" when
// it cut (a column never pushes the next one over).
func Clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
