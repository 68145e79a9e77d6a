package launcher

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/childproof/childproof/verify"
)

// TextOptions tune the text forms of rounds and relaunch results
// (Round.DeltaText, EnvDiff.OverrideText, EnvFileChange.Text). The zero
// value shows paths as recorded and no value.
type TextOptions struct {
	// Dir, when set, shows a path that lies below it relative to it (the
	// CLI passes its working directory); other paths, and every path when
	// Dir is "", are shown as recorded.
	Dir string
	// ShowValues shows a non-secret --set value and the text an env file
	// edit replaced (history --show-values). A secret value is never shown.
	ShowValues bool
}

// path is p as o shows it: relative to o.Dir when it lies below it (as
// envres.RebasePath(p, "", o.Dir)).
func (o TextOptions) path(p string) string {
	if p == "" || o.Dir == "" {
		return p
	}
	if rel, err := filepath.Rel(o.Dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// OutcomeText is r's outcome as history shows it: the outcome, followed
// for a round neither verified nor launching by its problem kinds, if
// any: "failed (env-mismatch,port-missing)".
func (r *Round) OutcomeText() string {
	switch r.Outcome {
	case RoundVerified, RoundLaunching:
		return string(r.Outcome)
	}
	if len(r.Problems) > 0 {
		kinds := make([]string, len(r.Problems))
		for i, k := range r.Problems {
			kinds[i] = string(k)
		}
		return string(r.Outcome) + " (" + strings.Join(kinds, ",") + ")"
	}
	return string(r.Outcome)
}

// EndText is how r's worker ended (RoundEnd.String); while its end is not
// known, "running" for a verified round and "-" otherwise.
func (r *Round) EndText() string {
	if r.End == nil {
		if r.Outcome == RoundVerified {
			return "running"
		}
		return "-"
	}
	return r.End.String()
}

// String is how the worker ended: "exit 1", "killed by SIGKILL",
// "stopped by childproof", "gone, status unknown" (another How as it is),
// with " (stopped)" when childproof stopped a worker whose status it saw.
func (e *RoundEnd) String() string {
	var s string
	switch e.How {
	case EndExited:
		s = "exit " + strconv.Itoa(*e.ExitStatus)
	case EndSignaled:
		s = "killed by " + e.Signal
	case EndStopped:
		s = "stopped by childproof"
	case EndGone:
		s = "gone, status unknown"
	default:
		s = string(e.How)
	}
	if e.StoppedBy != "" && e.How != EndStopped {
		s += " (stopped)"
	}
	return s
}

// UptimeText is r's worker's uptime: to the second above a minute, else
// to 10 ms, "<=" before an upper bound (RoundEnd.UptimeAtMost); for a
// verified round still running, its time since it started up to now
// "so far"; "-" otherwise.
func (r *Round) UptimeText(now time.Time) string {
	if r.End == nil {
		if r.Outcome == RoundVerified {
			return now.Sub(r.Started).Round(time.Second).String() + " so far"
		}
		return "-"
	}
	u := r.End.Uptime()
	if u > time.Minute {
		u = u.Round(time.Second)
	} else {
		u = u.Round(10 * time.Millisecond)
	}
	if r.End.UptimeAtMost {
		return "<=" + u.String()
	}
	return u.String()
}

// DeltaText is r's delta as history shows it: "(round N)" for a replay of
// round N, +NAME per --set name (+NAME=VALUE with o.ShowValues,
// +NAME=<secret> for a secret one) with the env file an --in-env-file
// edit wrote it into, -NAME per dropped override; "-" when it has none.
func (r *Round) DeltaText(o TextOptions) string {
	var parts []string
	if r.ReplayOf > 0 {
		parts = append(parts, fmt.Sprintf("(round %d)", r.ReplayOf))
	}
	for _, ov := range r.Delta.Set {
		var p string
		switch {
		case ov.Secret:
			p = "+" + ov.Name + "=<secret>"
		case o.ShowValues && ov.Value != nil:
			p = "+" + ov.Name + "=" + *ov.Value
		default:
			p = "+" + ov.Name
		}
		if e := ov.EnvFile; e != nil {
			p += fmt.Sprintf(" (in %s:%d", o.path(e.File), e.Line)
			switch {
			case e.Appended:
				p += ", appended"
			case o.ShowValues && e.Old != nil:
				p += ", was " + *e.Old
			case e.OldDigest != "":
				p += ", was " + verify.ShortDigest(e.OldDigest)
			}
			p += ")"
		}
		parts = append(parts, p)
	}
	for _, n := range r.Delta.Unset {
		parts = append(parts, "-"+n)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}
