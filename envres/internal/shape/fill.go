package shape

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Fill says which names a fill-only load assigns: a loader that assigns
// a name only while it is unset (or empty) never overrides the caller's
// export, so it is not a clobber.
type Fill uint8

// The fill modes.
const (
	FillNone         Fill = iota // every name is assigned
	FillUnsetOrEmpty             // [ -z "${!k}" ] && export …, : "${X:=v}"
	FillUnset                    // [ -z "${!k+x}" ], [[ -v $k ]] || export …
)

// LoopFill reports whether a loader loop's body assigns only names that
// are unset or empty: the assignment is guarded by (or takes its value
// from) an indirect test of the name read from the file — ${!k},
// ${!k:-$v}, ${!k+x}, $(eval echo \$$k), [[ -v $k ]], printenv "$k",
// declare -p "$k". The test must be of the very name assigned: when the
// body's assignments name their variable through $k (export "$k=$v",
// printf -v "$k", declare -x "$k"=…), a guard that tests another name
// ([ -z "${!other}" ]) makes no fill-only load.
func LoopFill(body []*syntax.Stmt) Fill {
	assigned := assignedNameVars(body)
	mode := FillNone
	see := func(m Fill, names ...string) {
		if len(assigned) > 0 {
			ok := false
			for _, n := range names {
				ok = ok || assigned[n]
			}
			if !ok {
				return
			}
		}
		if mode == FillNone || m == FillUnset {
			mode = m
		}
	}
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ParamExp:
				if n.Excl && n.Param != nil && n.Names == 0 && n.Index == nil {
					if n.Exp != nil && (n.Exp.Op == syntax.AlternateUnset || n.Exp.Op == syntax.DefaultUnset) {
						see(FillUnset, n.Param.Value)
					} else {
						see(FillUnsetOrEmpty, n.Param.Value)
					}
				}
			case *syntax.UnaryTest:
				if n.Op == syntax.TsVarSet {
					see(FillUnset, paramNames(n.X)...)
				}
			case *syntax.CmdSubst:
				if len(n.Stmts) == 1 {
					if c, ok := n.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(c.Args) > 1 && c.Args[0].Lit() == "eval" {
						see(FillUnsetOrEmpty, paramNames(c)...)
					}
				}
			case *syntax.CallExpr:
				if len(n.Args) > 1 {
					switch n.Args[0].Lit() {
					case "printenv":
						see(FillUnset, paramNames(n.Args[1])...)
					case "declare", "typeset":
						if n.Args[1].Lit() == "-p" && len(n.Args) > 2 {
							see(FillUnset, paramNames(n.Args[2])...)
						}
					}
				}
			}
			return true
		})
	}
	return mode
}

// paramNames returns the names of the parameters a node expands.
func paramNames(n syntax.Node) []string {
	var out []string
	syntax.Walk(n, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil {
			out = append(out, pe.Param.Value)
		}
		return true
	})
	return out
}

// assignedNameVars returns the variables a loop body names its
// assignments through: k in export "$k=$v", export $k="$v", declare -x
// "$k=$v", printf -v "$k" …, read -r "$k". Nil when none is found (the
// guard is then not matched against a name).
func assignedNameVars(body []*syntax.Stmt) map[string]bool {
	var m map[string]bool
	add := func(w *syntax.Word) {
		if w == nil || len(w.Parts) == 0 {
			return
		}
		parts := w.Parts
		if dq, ok := parts[0].(*syntax.DblQuoted); ok && len(parts) == 1 {
			parts = dq.Parts
		}
		if len(parts) == 0 {
			return
		}
		pe, ok := parts[0].(*syntax.ParamExp)
		if !ok || pe.Param == nil || pe.Excl {
			return
		}
		// Only $k=…: a whole "$line" names its variable through a name
		// derived from it (k=${line%%=*}), which any guard may test.
		rest := w.Parts[1:]
		if len(w.Parts) == 1 && len(parts) > 1 {
			rest = parts[1:]
		}
		if len(rest) == 0 {
			return
		}
		if l, ok := rest[0].(*syntax.Lit); !ok || !strings.HasPrefix(l.Value, "=") {
			if dq, ok := rest[0].(*syntax.DblQuoted); !ok || len(dq.Parts) == 0 {
				return
			} else if l, ok := dq.Parts[0].(*syntax.Lit); !ok || !strings.HasPrefix(l.Value, "=") {
				return
			}
		}
		if m == nil {
			m = map[string]bool{}
		}
		m[pe.Param.Value] = true
	}
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CallExpr:
				if len(n.Args) < 2 {
					return true
				}
				switch n.Args[0].Lit() {
				case "export", "declare", "typeset":
					for _, w := range n.Args[1:] {
						if !strings.HasPrefix(w.Lit(), "-") {
							add(w)
						}
					}
				case "printf":
					for i, w := range n.Args[1 : len(n.Args)-1] {
						if w.Lit() == "-v" {
							for _, name := range paramNames(n.Args[i+2]) {
								if m == nil {
									m = map[string]bool{}
								}
								m[name] = true
							}
						}
					}
				}
			case *syntax.DeclClause:
				for _, as := range n.Args {
					if as.Name == nil && as.Value != nil {
						add(as.Value)
					}
				}
			}
			return true
		})
	}
	return m
}
