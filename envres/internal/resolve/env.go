package resolve

import (
	"path/filepath"
	"sort"

	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/plan"
	"github.com/childproof/childproof/envres/script"
)

// Env fills a start's environment from the variables where it starts
// (all, as ev's scope holds them) and the loads not resolved on the way
// (pending): exported variables the scripts set, env files loaded, names
// passed on as they are.
func (r *Resolver[E, C]) Env(ev *evaluator[E, C], all map[string]expand.VarState[E], pending []*E, s *plan.Start) {
	files := map[string]bool{}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		vs := all[name]
		if vs.Val.Kind == expand.Unset || vs.Exp == expand.No {
			continue
		}
		var load, assign *Origin
		for _, e := range vs.Origins {
			switch o := r.walk.Origin(e); o.Kind {
			case Load:
				load = &o
			case Assign:
				assign = &o
			}
		}
		if vs.Exp == expand.Maybe {
			continue // a shell variable the script never exported
		}
		if len(vs.Origins) > 1 {
			at := r.walk.Origin(vs.Origins[0]).At
			s.Unresolved = append(s.Unresolved, plan.Note{Pos: at.Pos,
				Text: name + " is set by more than one statement, on different paths"})
			continue
		}
		switch {
		case load != nil && vs.LoadExp:
			if load.Unresolved {
				continue // reported with the pending loads
			}
			f := load.What
			if !filepath.IsAbs(f) {
				f = filepath.Join(r.dir, f)
			}
			if !files[f] {
				files[f] = true
				s.EnvFiles = append(s.EnvFiles, f)
			}
			if x, ok := r.exports[name]; ok && x.site.Line > 0 {
				w := r.valueWord(ev, name, x.v, &Origin{Kind: Assign, At: x.site})
				s.Env = append(s.Env, plan.EnvSetting{Name: name, Value: w, Pos: script.Pos{File: x.site.File, Line: x.site.Line}, Clobbered: true})
			}
		case assign != nil:
			if vs.Val.Kind == expand.Orig && vs.Val.Str == name {
				s.Inherit = append(s.Inherit, name)
				continue
			}
			w := r.valueWord(ev, name, vs.Val, assign)
			s.Env = append(s.Env, plan.EnvSetting{Name: name, Value: w, Pos: script.Pos{File: assign.At.File, Line: assign.At.Line}})
		case vs.Val.Kind == expand.Orig && vs.Val.Str == name, vs.Val.Kind == expand.Unknown && len(vs.Origins) == 0:
			// export NAME of the caller's variable
			s.Inherit = append(s.Inherit, name)
		}
	}
	for _, e := range pending {
		o := r.walk.Origin(e)
		what := "an env file that cannot be resolved statically"
		if o.What != "" {
			what = "an env file that cannot be resolved statically (" + o.What + ")"
		}
		s.Unresolved = append(s.Unresolved, plan.Note{Pos: o.At.Pos, Text: what + " is loaded into the exported environment"})
	}
}

// valueWord resolves a variable's value v; one is the statement that set
// it when one statement did.
func (r *Resolver[E, C]) valueWord(ev *evaluator[E, C], name string, v expand.Value, one *Origin) plan.Word {
	switch v.Kind {
	case expand.Literal:
		if _, derived := r.loadedFrom(ev, name, 0); derived {
			// OTHER="$API_KEY": built from a value read from an env file.
			if parts, ok := r.fromOne(ev, name, one); ok {
				return plan.Word{Parts: parts}
			}
			return plan.Word{Text: "$" + name}
		}
		return plan.Word{Parts: []plan.Part{{Lit: v.Str}}, Text: v.Str}
	case expand.Orig:
		return plan.Word{Parts: []plan.Part{{Env: v.Str}}, Text: "$" + v.Str}
	case expand.Unknown:
		if parts, ok := r.fromOne(ev, name, one); ok {
			return plan.Word{Parts: parts}
		}
	}
	return plan.Word{}
}

// fromOne is fromOrigin of one, when one statement set the value.
func (r *Resolver[E, C]) fromOne(ev *evaluator[E, C], name string, one *Origin) ([]plan.Part, bool) {
	if one == nil {
		return nil, false
	}
	return r.fromOrigin(ev, name, *one, 0)
}
