package present

import (
	"fmt"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/verify"
)

// OutcomeText is r's outcome as history shows it: the outcome, followed
// for a round neither verified nor launching by its problem kinds, if
// any: "failed (env-mismatch,port-missing)".
func OutcomeText(r *launcher.Round) string {
	switch r.Outcome {
	case launcher.RoundVerified, launcher.RoundLaunching:
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
func EndText(r *launcher.Round) string {
	if r.End == nil {
		if r.Outcome == launcher.RoundVerified {
			return "running"
		}
		return "-"
	}
	return r.End.String()
}

// UptimeText is r's worker's uptime: to the second above a minute, else
// to 10 ms, "<=" before an upper bound (RoundEnd.UptimeAtMost); for a
// verified round still running, its time since it started up to now
// "so far"; "-" otherwise.
func UptimeText(r *launcher.Round, now time.Time) string {
	if r.End == nil {
		if r.Outcome == launcher.RoundVerified {
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
func DeltaText(r *launcher.Round, o TextOptions) string {
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
