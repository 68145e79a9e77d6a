package relaunch

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
)

// planRelaunch works out a relaunch's overrides: the baseline round's
// (prev.Round) or, with opts.Round, round N's; minus opts.Unset; plus
// opts.Set. It returns the plan, the overrides' values (to launch with),
// the names that must change on the worker (this round's --set names, and
// with --round the overrides that differ from the baseline's) and the
// names that may change (dropped overrides). A secret override of the
// round carried or replayed that is not given again is a usage error
// naming every such name.
func planRelaunch(st *launcher.State, l *spec.Launch, prev *launcher.Record, opts Options) (plan *launcher.RoundPlan, set map[string]string, must, may []string, err error) {
	plan = &launcher.RoundPlan{Command: opts.Command, Baseline: prev.Round, ReplayOf: opts.Round, Overrides: map[string]launcher.Override{}}
	if plan.Command == "" {
		plan.Command = launcher.CommandRelaunch
	}
	base := map[string]launcher.Override{}
	if prev.Round > 0 {
		br, lerr := st.LoadRound(l.Name, prev.Round)
		if e := (*launcher.Error)(nil); errors.As(lerr, &e) && opts.Round == 0 {
			return nil, nil, nil, nil, e
		}
		// A history removed by hand carries nothing: the record's
		// digests still catch an override that is not given again.
		if lerr != nil && opts.Round == 0 && !errors.Is(lerr, fs.ErrNotExist) {
			return nil, nil, nil, nil, &launcher.Error{Outcome: outcome.Usage, Err: lerr,
				Msg:  fmt.Sprintf("the baseline round %d of %q is unreadable: its overrides cannot be carried forward", prev.Round, l.Name),
				Name: l.Name, Fix: launcher.FixReplayRound,
				Hint: "replay a readable round with relaunch.Options.Round (State.History lists them)"}
		}
		if br != nil {
			for _, o := range br.Overrides {
				base[o.Name] = o
			}
		}
	}
	from := fmt.Sprintf("round %d", prev.Round)
	target := maps.Clone(base)
	if opts.Round > 0 {
		rn, lerr := st.LoadRound(l.Name, opts.Round)
		if e := (*launcher.Error)(nil); errors.As(lerr, &e) {
			return nil, nil, nil, nil, e
		}
		if lerr != nil {
			return nil, nil, nil, nil, &launcher.Error{Outcome: outcome.Usage,
				Err:  &OptionError{Fields: []string{"Round"}, Arg: strconv.Itoa(opts.Round), Err: fmt.Errorf("no readable round %d of %q: %w", opts.Round, l.Name, lerr)},
				Name: l.Name, Fix: launcher.FixRounds,
				Hint: "State.History lists the rounds"}
		}
		from = fmt.Sprintf("round %d", opts.Round)
		target = map[string]launcher.Override{}
		for _, o := range rn.Overrides {
			target[o.Name] = o
		}
	}
	for _, n := range slices.Compact(slices.Sorted(slices.Values(opts.Unset))) {
		if _, ok := opts.Set[n]; ok {
			return nil, nil, nil, nil, &launcher.Error{Outcome: outcome.Usage, Err: &OptionError{Fields: []string{"Unset", "Set"}, Arg: n, Err: errors.New("give one of them")}}
		}
		if _, ok := target[n]; !ok {
			have := slices.Sorted(maps.Keys(target))
			return nil, nil, nil, nil, &launcher.Error{Outcome: outcome.Usage,
				Err:  &OptionError{Fields: []string{"Unset"}, Arg: n, Err: fmt.Errorf("%s is not an override of %s (its overrides: %s)", n, from, listOrNone(have))},
				Fix:  launcher.FixUnsetWhat,
				Hint: "relaunch.Options.Unset drops an override carried from an earlier round's Options.Set"}
		}
		delete(target, n)
	}
	lopts := opts.Options
	var explicit []string
	for _, n := range slices.Sorted(maps.Keys(opts.Set)) {
		target[n] = st.Override(l, lopts, n, opts.Set[n])
		explicit = append(explicit, n)
	}
	var missing []string
	set = map[string]string{}
	for n, o := range target {
		switch {
		case hasKey(opts.Set, n):
			set[n] = opts.Set[n]
		case o.Secret || o.Value == nil:
			missing = append(missing, n)
		default:
			set[n] = *o.Value
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, nil, nil, nil, &launcher.Error{Outcome: outcome.Usage,
			Msg: fmt.Sprintf("%s has secret override(s) %s: their values are never stored, so they must be given again; nothing was stopped",
				from, strings.Join(missing, ", ")),
			Names: missing, Fix: launcher.FixSecretsAgain,
			Hint: "give them again in Options.Set and name them in Options.SecretSet (or drop them with relaunch.Options.Unset)"}
	}
	plan.Overrides, plan.Base = target, base
	must = append(must, explicit...)
	for n, o := range target {
		if hasKey(opts.Set, n) {
			continue
		}
		if b, ok := base[n]; !ok || b.Digest != o.Digest {
			must = append(must, n)
		}
	}
	for n := range base {
		if _, ok := target[n]; !ok {
			may = append(may, n)
		}
	}
	slices.Sort(must)
	slices.Sort(may)
	// The round's delta: what changes against the baseline round's
	// overrides (a --set repeated with the same value keeps its round),
	// and what it drops.
	for _, n := range must {
		if b, ok := base[n]; ok && b.Digest == target[n].Digest {
			o := target[n]
			o.Round = b.Round
			target[n] = o
			continue
		}
		plan.Set = append(plan.Set, n)
	}
	plan.Unset = may
	return plan, set, must, may, nil
}
