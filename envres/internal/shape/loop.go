package shape

import "mvdan.cc/sh/v3/syntax"

// BodyLoads reports whether a loop body exports or evals what it reads;
// an export or eval in a subshell ($(…), (…), <(…)) changes nothing of the
// loop's shell (EXPANDED=$(eval echo "$LINE") is no load).
func BodyLoads(body []*syntax.Stmt) (exports, evals bool) {
	for _, ds := range body {
		syntax.Walk(ds, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.Subshell, *syntax.ProcSubst:
				return false
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					switch n.Args[0].Lit() {
					case "export":
						exports = true
					case "eval":
						evals = true
					}
				}
			case *syntax.DeclClause:
				switch n.Variant.Value {
				case "export":
					exports = true
				case "declare", "typeset":
					for _, as := range n.Args {
						if as.Naked && as.Value != nil && (as.Value.Lit() == "-x" || as.Value.Lit() == "-gx") {
							exports = true
						}
					}
				}
			}
			return true
		})
	}
	return exports, evals
}

// HasCmdSubst reports whether w holds a command substitution anywhere.
func HasCmdSubst(w *syntax.Word) bool {
	literal := true
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			literal = false
		}
	}
	if literal {
		return false // the common case, without a walk
	}
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.CmdSubst); ok {
			found = true
		}
		return !found
	})
	return found
}

// ArrayParam returns NAME when w is "${NAME[@]}" or ${NAME[*]}.
func ArrayParam(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return ""
	}
	p := w.Parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	pe, ok := p.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Index == nil || pe.Exp != nil || pe.Excl || pe.Length {
		return ""
	}
	if iw, ok := pe.Index.(*syntax.Word); ok && (iw.Lit() == "@" || iw.Lit() == "*") {
		return pe.Param.Value
	}
	return ""
}
