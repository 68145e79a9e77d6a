package present

import (
	"errors"
	"fmt"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
)

// RoundsDiff is `childproof history NAME --diff A B`'s answer: the names
// whose digests differ between the workers of rounds A and B of launch
// Name, sorted. Its JSON is the command's object. It is plain data: safe for concurrent use while nothing changes it.
type RoundsDiff struct {
	A      int        `json:"a"`
	B      int        `json:"b"`
	Differ []DiffName `json:"differ"` // never nil: [] when none differs
	Name   string     `json:"name"`
}

// DiffName is one name of a RoundsDiff, an EnvDiff in words. It is plain data: safe for concurrent use while nothing changes it.
type DiffName struct {
	Name string `json:"name"`
	// How is "changed", "only in round A" or "only in round B"
	// (HowText).
	How string `json:"how"`
	// A and B are its digests on each worker; empty where it is absent.
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	// Override says where the name is a --set override
	// (OverrideText); "" when it is none.
	Override string `json:"override,omitempty"`
	// Volatile: the launched tree sets it anew on every launch (a spec's
	// volatile list, schema.BuiltinVolatile).
	Volatile bool `json:"volatile,omitempty"`
}

// CompareRounds is st.DiffRounds(name, a, b) in words, its overrides
// written with o. A round that cannot be compared is an *Error of
// Outcome outcome.Usage saying why: round N is not recorded (with a
// hint), or it has no verified worker and so no environment to compare;
// DiffRounds' *RoundError tells the two apart.
func CompareRounds(st *launcher.State, name string, a, b int, o TextOptions) (*RoundsDiff, error) {
	diffs, err := st.DiffRounds(name, a, b)
	var re *launcher.RoundError
	switch {
	case errors.As(err, &re) && re.Round == nil:
		return nil, &launcher.Error{Outcome: outcome.Usage, Msg: fmt.Sprintf("no round %d of %q is recorded in %s", re.N, name, st.Dir),
			Name: name, Fix: launcher.FixRounds,
			Hint: "State.History lists the rounds"}
	case errors.As(err, &re):
		return nil, &launcher.Error{Outcome: outcome.Usage,
			Msg: fmt.Sprintf("round %d of %q has no verified worker (%s): there is no environment to compare", re.N, name, OutcomeText(re.Round))}
	case err != nil:
		return nil, &launcher.Error{Outcome: outcome.Usage, Err: err}
	}
	out := &RoundsDiff{A: a, B: b, Name: name, Differ: []DiffName{}}
	for _, d := range diffs {
		out.Differ = append(out.Differ, DiffName{Name: d.Name, How: HowText(&d, a, b), A: d.A, B: d.B, Override: OverrideText(&d, o), Volatile: d.Volatile})
	}
	return out, nil
}

// Summary is the first line of history --diff's text: "rounds 2 and 3
// of job: 1 name differs on the worker", or, when none differs, "rounds
// 2 and 3 of job: the workers' environments are identical (every digest
// equal)".
func (d *RoundsDiff) Summary() string {
	switch len(d.Differ) {
	case 0:
		return fmt.Sprintf("rounds %d and %d of %s: the workers' environments are identical (every digest equal)", d.A, d.B, d.Name)
	case 1:
		return fmt.Sprintf("rounds %d and %d of %s: 1 name differs on the worker", d.A, d.B, d.Name)
	}
	return fmt.Sprintf("rounds %d and %d of %s: %d names differ on the worker", d.A, d.B, d.Name, len(d.Differ))
}

// Note is what history --diff's text lists after n's How: "  volatile
// (set anew on every launch)" for a volatile name, then "  " and
// Override for an override; "" for neither.
func (n DiffName) Note() string {
	note := ""
	if n.Volatile {
		note = "  volatile (set anew on every launch)"
	}
	if n.Override != "" {
		note += "  " + n.Override
	}
	return note
}
