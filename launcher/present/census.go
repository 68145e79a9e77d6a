package present

import (
	"cmp"
	"fmt"
	"io"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// This file holds `childproof ps`'s outputs: its table (WriteCensus,
// with the texts of its columns for a CensusEntry) and its JSON object
// (CensusOutput).

// CensusOutput is `childproof ps --format json`'s object:
// {"launches": [...]}. It is plain data: safe for concurrent use while nothing changes it.
type CensusOutput struct {
	// Launches are the census's entries in Census's order; never nil
	// ([] for none) when made by NewCensusOutput.
	Launches []launcher.CensusEntry `json:"launches"`
}

// NewCensusOutput is the CensusOutput of es, [] for none.
func NewCensusOutput(es []launcher.CensusEntry) *CensusOutput {
	if es == nil {
		es = []launcher.CensusEntry{}
	}
	return &CensusOutput{Launches: es}
}

// CensusText tunes WriteCensus. The zero value shows spec paths as
// recorded, ages up to the zero time and the worker's user for every
// worker not running as root. It is plain data: safe for concurrent use while nothing changes it.
type CensusText struct {
	// Dir, when set, shows a spec path that lies below it relative to it
	// (the CLI passes its working directory; TextOptions.Dir).
	Dir string
	// Euid is the caller's effective uid (os.Geteuid): a worker running
	// as another uid is named in its PORTS column (PortsText).
	Euid int
	// Now is the time the AGE column is measured to (AgeText).
	Now time.Time
}

// censusRow is the layout of a row of ps's table.
const censusRow = "%-20s %-11s %-8s %-16s %-10s %-5s %s\n"

// WriteCensus writes es as ps's table: the header "NAME STATUS PID COMM
// AGE ROUND PORTS", then a row per entry — its name, status, PidText,
// the worker's comm, AgeText(o.Now), RoundText and PortsText(o.Euid).
// The entries of one spec file are kept together (a stable sort by
// SpecPath; es itself is not reordered); when they come from several,
// each group starts with a line "# PATH" ("# (no spec file)" for none),
// PATH relative to o.Dir when below it. No entry writes the header only
// (ps says EmptyCensusText instead).
func WriteCensus(w io.Writer, es []launcher.CensusEntry, o CensusText) {
	// Launches of one spec file together (up starts several).
	sorted := make([]*launcher.CensusEntry, len(es))
	for i := range es {
		sorted[i] = &es[i]
	}
	// A census of several state dirs keeps each dir's launches together.
	slices.SortStableFunc(sorted, func(a, b *launcher.CensusEntry) int {
		return cmp.Or(strings.Compare(a.Host, b.Host), strings.Compare(a.StateDir, b.StateDir), strings.Compare(a.SpecPath, b.SpecPath))
	})
	newGroup := func(i int) bool {
		return i == 0 || sorted[i].SpecPath != sorted[i-1].SpecPath || sorted[i].StateDir != sorted[i-1].StateDir || sorted[i].Host != sorted[i-1].Host
	}
	groups := 0
	for i := range sorted {
		if newGroup(i) {
			groups++
		}
	}
	fmt.Fprintf(w, censusRow, "NAME", "STATUS", "PID", "COMM", "AGE", "ROUND", "PORTS")
	paths := TextOptions{Dir: o.Dir}
	for i, e := range sorted {
		if groups > 1 && newGroup(i) {
			spec := e.SpecPath
			if spec == "" {
				spec = "(no spec file)"
			}
			where := ""
			for _, p := range []string{e.Host, e.StateDir} {
				if p != "" {
					where += p + ": "
				}
			}
			fmt.Fprintf(w, "# %s%s\n", where, paths.path(spec))
		}
		fmt.Fprintf(w, censusRow, e.Name, e.Status, PidText(e), e.Worker.Comm, AgeText(e, o.Now), RoundText(e), PortsText(e, o.Euid))
	}
}

// PidText is the entry's PID column: the worker's pid, with "?" after
// what an untrusted record claims (never checked, never acted on).
func PidText(e *launcher.CensusEntry) string {
	pid := strconv.Itoa(e.Worker.Pid)
	if e.Status == launcher.StatusUntrusted && e.Worker.Pid != 0 {
		pid += "?"
	}
	return pid
}

// AgeText is the entry's AGE column: how long before now the launch
// started, to the second, "1h2m3s"; "-" when its start is unknown.
func AgeText(e *launcher.CensusEntry, now time.Time) string {
	if e.Started.IsZero() {
		return "-"
	}
	return now.Sub(e.Started).Round(time.Second).String()
}

// RoundText is the entry's ROUND column: its round in the history, "-"
// for none.
func RoundText(e *launcher.CensusEntry) string {
	if e.Round <= 0 {
		return "-"
	}
	return strconv.Itoa(e.Round)
}

// PortsText is the entry's PORTS column: each recorded port and who holds
// it, "127.0.0.1:8080 worker; 0.0.0.0:9090 none", then in parentheses
// what else the census knows — never verified (Pending); claimed by an
// untrusted record; the user the worker runs as when it is not euid (the
// caller's effective uid), "(as alice, uid 1001)"; the workers of a
// multi-process job; Note; the restarts and last exit status.
func PortsText(e *launcher.CensusEntry, euid int) string {
	var b strings.Builder
	for i, p := range e.Ports {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s:%d %s", p.Address, p.Number, p.Holder)
	}
	if e.Pending {
		b.WriteString(" (never verified)")
	}
	if e.Status == launcher.StatusUntrusted {
		if e.Worker.Pid != 0 {
			b.WriteString(" (claimed by the record, unverified)")
		}
	} else if e.Worker.Pid != 0 && e.Worker.UID != euid {
		// A launch with user = …: who the worker runs as.
		who := fmt.Sprintf("uid %d", e.Worker.UID)
		if u, err := user.LookupId(strconv.Itoa(e.Worker.UID)); err == nil {
			who = u.Username + ", " + who
		}
		b.WriteString(" (as " + who + ")")
	}
	if e.Workers > 1 {
		fmt.Fprintf(&b, " (%d workers, the first shown)", e.Workers)
	}
	if e.Note != "" {
		b.WriteString(" (" + verify.Clip(e.Note, 80) + ")")
	}
	switch {
	case e.Oneshot && e.LastExit != nil:
		fmt.Fprintf(&b, " (oneshot, exit status %d)", *e.LastExit)
	case e.Oneshot:
		b.WriteString(" (oneshot)")
	case e.Restarts > 0 || e.LastExit != nil:
		restarts := "1 restart"
		if e.Restarts != 1 {
			restarts = fmt.Sprintf("%d restarts", e.Restarts)
		}
		b.WriteString(" (" + restarts)
		if e.LastExit != nil {
			fmt.Fprintf(&b, ", last exit status %d", *e.LastExit)
		}
		b.WriteString(")")
	}
	return b.String()
}

// EmptyCensusText is what ps says when Census(p, st, all) lists nothing:
// without all, the stopped launches it left out are counted, "no running
// launches; 2 stopped (ps --all)"; else "no recorded launches".
func EmptyCensusText(p proc.FS, st *launcher.State, all bool) string {
	if !all {
		if stopped, _ := launcher.CountStopped(p, st); stopped > 0 {
			return fmt.Sprintf("no running launches; %d stopped (ps --all)", stopped)
		}
	}
	return "no recorded launches"
}
