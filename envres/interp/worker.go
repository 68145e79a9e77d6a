package interp

import (
	"sort"
	"strings"

	"github.com/childproof/childproof/envres/internal/expand"
)

// workerPoint checks the environment a worker starts with: an exec'd or
// background command, or the last command of a script (cmd may be nil).
func (a *analyzer) workerPoint(st *state, cmd *cmdRef) {
	a.workerPoints++
	if a.plan != nil && cmd != nil {
		a.plan.worker(st, cmd)
	}
	if cmd != nil {
		for _, b := range cmd.binds {
			a.pass.Binds = fact(a.pass.Binds, b)
		}
	}
	if !st.reset {
		for _, p := range a.protList {
			vs, ok := st.Get(p.name)
			if !ok {
				vs = expand.DefaultVar[event]()
			}
			a.checkProtected(p, vs)
		}
	}
	if st.reset {
		// The environment was reset on the way (env-reset says so); what
		// changed the protected names before the reset is still reported.
		for _, p := range a.protList {
			if vs, ok := st.preReset[p.name]; ok {
				a.checkProtected(p, vs)
			}
		}
		return
	}
	if st.loaded {
		groups := map[*event][]string{}
		for name, vs := range st.Vars.All() {
			if !vs.LoadExp || vs.Exp == expand.No || a.prot[name] != nil {
				continue
			}
			for _, ev := range vs.Origins {
				if ev.kind == evLoad {
					groups[ev] = append(groups[ev], name)
				}
			}
		}
		evs := make([]*event, 0, len(groups))
		for ev := range groups {
			evs = append(evs, ev)
		}
		sort.Slice(evs, func(i, j int) bool { return evs[i].site.Line < evs[j].site.Line })
		for _, ev := range evs {
			names := groups[ev]
			sort.Strings(names)
			if a.once(factKey{2, ev.site.Pos, ev.what, strings.Join(names, ","), flag(a.helperEnd)}) {
				a.pass.Loads = fact(a.pass.Loads, Load{At: ev.site, What: ev.what, Names: names, In: ev.note, NoWorker: a.helperEnd, Read: a.readOf(ev)})
			}
		}
	}
	for _, ev := range st.pending {
		if a.once(factKey{2, ev.site.Pos, ev.what, "", flag(a.helperEnd) | 2}) {
			a.pass.Loads = fact(a.pass.Loads, Load{At: ev.site, What: ev.what, Unresolved: true, Unreadable: ev.unreadable, In: ev.note, NoWorker: a.helperEnd})
		}
	}
}

// describe says what value an event gave p, from the value the event
// assigned; when paths merged, it says that the change happens on some.
func (a *analyzer) describe(p *protVar, ev *event, vs varState, merged string) string {
	v, ok := ev.vals[p.name]
	if !ok {
		return merged
	}
	d := merged
	switch v.Kind {
	case expand.Literal:
		switch {
		case p.override && p.known && v.Str == p.value:
			return merged
		case p.override && !p.known:
			d = "a value that may differ from the override's"
		case !p.override && v.Str == "":
			d = "an empty value"
		default:
			d = "a different value"
		}
	case expand.Unknown:
		d = "a value that cannot be known statically"
	case expand.Orig:
		d = "the value of " + v.Str
	}
	if vs.Val != v {
		d += " on some paths"
	}
	return d
}

// checkProtected reports what changed a protected variable on the way to
// the worker.
func (a *analyzer) checkProtected(p *protVar, vs varState) {
	ok := false
	desc := "a different value"
	switch vs.Val.Kind {
	case expand.Orig:
		ok = vs.Val.Str == p.name
		if q := a.prot[vs.Val.Str]; !ok && q != nil && p.known && q.known && p.value == q.value {
			ok = true
		}
		if !ok {
			desc = "the value of " + vs.Val.Str
		}
	case expand.Literal:
		if p.override {
			ok = p.known && vs.Val.Str == p.value
			if !p.known {
				desc = "a value that may differ from the override's"
			}
		} else {
			ok = vs.Val.Str != ""
			desc = "an empty value"
		}
	case expand.Unknown:
		ok = !p.override
		desc = "a value that cannot be known statically"
	}
	if vs.Exp == expand.No {
		ok = false
	}
	if ok && vs.Exp == expand.Yes {
		return
	}
	for _, ev := range vs.Origins {
		switch ev.kind {
		case evUnset:
			a.change(ev, p.name, ChangeUnset, "", false)
		case evUnexport:
			a.change(ev, p.name, ChangeUnexport, "", false)
		case evLoad:
			if ok || ev.unresolved {
				continue
			}
			if ev.fill == fillUnsetOrEmpty && p.known && p.value == "" {
				a.change(ev, p.name, ChangeFill, "", false)
				continue
			}
			a.change(ev, p.name, ChangeLoad, a.describe(p, ev, vs, desc), false)
		case evAssign:
			if ok {
				continue
			}
			a.change(ev, p.name, ChangeAssign, a.describe(p, ev, vs, desc), false)
		}
	}
	for _, ev := range vs.Earlier {
		v, known := ev.vals[p.name]
		if !known {
			continue
		}
		d := a.describe(p, ev, varState{Val: v}, desc)
		switch ev.kind {
		case evLoad:
			if !ev.unresolved {
				a.change(ev, p.name, ChangeLoad, d, true)
			}
		case evAssign:
			a.change(ev, p.name, ChangeAssign, d, true)
		}
	}
}

// change records that ev changed protected variable name on the way to a
// worker: how says what value it gave; later, that a later statement
// changes it again.
func (a *analyzer) change(ev *event, name string, kind ChangeKind, how string, later bool) {
	generated := ev.file != "" && a.written[ev.file]
	if !a.once(factKey{1, ev.site.Pos, name, string(kind) + "\x00" + how, flag(later) | flag(a.helperEnd)<<1 | flag(generated)<<2}) {
		return
	}
	c := Change{At: ev.site, Kind: kind, Var: name, Value: how, Later: later, Load: ev.what, In: ev.note, NoWorker: a.helperEnd}
	if kind == ChangeLoad || kind == ChangeFill {
		c.Source = EnvSource{Variable: name, File: ev.file, Generated: generated, Overwritten: later}
		c.Read = a.readOf(ev)
	}
	a.pass.Changes = fact(a.pass.Changes, c)
}

// protSnapshot returns the protected variables of st.
func (a *analyzer) protSnapshot(st *state) map[string]varState {
	m := make(map[string]varState, len(a.protList))
	for _, p := range a.protList {
		vs, ok := st.Get(p.name)
		if !ok {
			vs = expand.DefaultVar[event]()
		}
		m[p.name] = vs
	}
	return m
}

// markReset marks st as started with a fresh environment, keeping the
// protected variables as they were before (snap, or st's own).
func (a *analyzer) markReset(st *state, snap map[string]varState) {
	if st.reset {
		return
	}
	if snap == nil {
		snap = a.protSnapshot(st)
	}
	st.reset, st.preReset = true, snap
}
