package launcher

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/childproof/childproof/verify"
)

// HowText is how d's name differs as history --diff A B says it:
// "changed", "only in round A" or "only in round B" (a and b the rounds
// compared); "" for an unknown How.
func (d *EnvDiff) HowText(a, b int) string {
	switch d.How {
	case Changed:
		return "changed"
	case OnlyInA:
		return fmt.Sprintf("only in round %d", a)
	case OnlyInB:
		return fmt.Sprintf("only in round %d", b)
	}
	return ""
}

// OverrideText says where d's name is a --set override in the rounds
// compared, "--set in round 4; --set=<secret> in round 2 (carried forward
// into round 5)": with the value when o.ShowValues is set and the value
// is kept and not secret, and with the round that set it when that is an
// earlier one. It is "" when the name is no override.
func (d *EnvDiff) OverrideText(o TextOptions) string {
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

// WriteText writes d as relaunch's text report ends, one "  delta:   …"
// line per changed, carried, unchanged or dropped name and a last line
// saying whether the delta is exactly the declared names, in one Write.
// prev is the recorded worker's launch the delta is measured against
// (nil: not named). A nil d writes nothing.
func (d *Delta) WriteText(w io.Writer, prev *Record) {
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
		if !slices.ContainsFunc(d.Changed, func(c DeltaName) bool { return c.Name == n }) {
			fmt.Fprintf(&b, "  delta:   %s dropped, unchanged on the worker (its value without the override is the same)\n", n)
		}
	}
	if d.OK() {
		if len(d.Changed) == 0 {
			fmt.Fprintf(&b, "  delta:   none: the worker's environment is identical%s\n", against)
		} else {
			changed := make([]string, 0, len(d.Changed))
			for _, c := range d.Changed {
				if !slices.Contains(d.Volatile, c.Name) {
					changed = append(changed, c.Name)
				}
			}
			fmt.Fprintf(&b, "  delta:   exactly %s changed on the worker%s\n", listOrNone(changed), against)
			if len(d.Volatile) > 0 {
				fmt.Fprintf(&b, "  delta:   volatile, not checked: %s\n", strings.Join(d.Volatile, ", "))
			}
		}
	}
	w.Write(b.Bytes())
}

// Text says what relaunch --rollback of the launch name did, as relaunch
// reports it after "childproof: relaunch: ": nothing to bring back, the
// round that is back and its worker, or the rollback's error. It is ""
// when there is nothing to say (RelaunchOptions.Rollback unset, or the
// rollback not tried).
func (rb *RollbackResult) Text(name string) string {
	switch {
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

// Text says what c did to its env file, as relaunch reports it after
// "childproof: relaunch: " (after "childproof: warning: relaunch: " for
// EnvFileKept), "NAME: set in FILE:LINE (…)"; name is the launch's name
// (its history keeps an edited file's old value) and o.Dir shows FILE
// relative to it. It is "" for an unknown How.
func (c *EnvFileChange) Text(name string, o TextOptions) string {
	at := fmt.Sprintf("%s:%d", o.path(c.File), c.Line)
	switch c.How {
	case EnvFileEdited:
		return fmt.Sprintf("%s: set in %s (the old value, %s, is in the round: childproof history %s)", c.Name, at, verify.ShortDigest(c.OldDigest), name)
	case EnvFileAppended:
		return fmt.Sprintf("%s: appended to %s (the file did not assign it)", c.Name, at)
	case EnvFileRestored:
		return fmt.Sprintf("%s: %s put back as it was before the edit, byte for byte", c.Name, at)
	case EnvFileKept:
		return fmt.Sprintf("%s: %s keeps the edited value: the old value of a secret was not kept; edit the file by hand", c.Name, at)
	}
	return ""
}
