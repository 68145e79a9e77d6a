package envres

import (
	"mvdan.cc/sh/v3/syntax"
)

// fillMode says which names a fill-only load assigns: a loader that
// assigns a name only while it is unset (or empty) never overrides the
// caller's export, so it is not a clobber.
type fillMode uint8

const (
	fillNone         fillMode = iota // every name is assigned
	fillUnsetOrEmpty                 // [ -z "${!k}" ] && export …, : "${X:=v}"
	fillUnset                        // [ -z "${!k+x}" ], [[ -v $k ]] || export …
)

// fillKeeps reports whether a fill-only load leaves a variable whose
// current state is old untouched: it certainly has a value (non-empty, or
// set for fillUnset). An override whose value is not given is taken to be
// non-empty, as for ${X:=v}.
func (a *analyzer) fillKeeps(old varState, mode fillMode) bool {
	switch old.v.k {
	case vOrig:
		if p := a.prot[old.v.s]; p != nil && p.known && p.value == "" {
			return mode == fillUnset
		}
		return true
	case vLit:
		return old.v.s != "" || mode == fillUnset
	}
	return false
}

// loopFill reports whether a loader loop's body assigns only names that
// are unset or empty: the assignment is guarded by (or takes its value
// from) an indirect test of the name read from the file — ${!k},
// ${!k:-$v}, ${!k+x}, $(eval echo \$$k), [[ -v $k ]], printenv "$k",
// declare -p "$k".
func loopFill(body []*syntax.Stmt) fillMode {
	mode := fillNone
	see := func(m fillMode) {
		if mode == fillNone || m == fillUnset {
			mode = m
		}
	}
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ParamExp:
				if n.Excl && n.Param != nil && n.Names == 0 && n.Index == nil {
					if n.Exp != nil && (n.Exp.Op == syntax.AlternateUnset || n.Exp.Op == syntax.DefaultUnset) {
						see(fillUnset)
					} else {
						see(fillUnsetOrEmpty)
					}
				}
			case *syntax.UnaryTest:
				if n.Op == syntax.TsVarSet {
					see(fillUnset)
				}
			case *syntax.CmdSubst:
				if len(n.Stmts) == 1 {
					if c, ok := n.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(c.Args) > 1 && c.Args[0].Lit() == "eval" {
						see(fillUnsetOrEmpty)
					}
				}
			case *syntax.CallExpr:
				if len(n.Args) > 1 {
					switch n.Args[0].Lit() {
					case "printenv":
						see(fillUnset)
					case "declare", "typeset":
						if n.Args[1].Lit() == "-p" {
							see(fillUnset)
						}
					}
				}
			}
			return true
		})
	}
	return mode
}
