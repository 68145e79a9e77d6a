package interp

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/progs"
)

// An activation (progs.ActivationCmd, ActivationRunner, ActivationEval,
// ActivatePath) runs scripts that this lint does not follow: env-activate
// reports it.

// activationEval returns the mechanism when an eval's command substitution
// prints a tool's activation code (progs.ActivationEval): the call as
// written, on one line.
func activationEval(stmts []*syntax.Stmt) string {
	call, mech := progs.ActivationEval(stmts)
	if call == nil {
		return ""
	}
	if t := nodeText(call); t != "" {
		return t
	}
	return mech
}

// nodeText prints a node as shell source, on one line, for messages.
func nodeText(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n); err != nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}

// reportActivation records an activation at s (env-activate reports it).
func (a *analyzer) reportActivation(s Site, mechanism string) {
	a.pass.Activations = fact(a.pass.Activations, Activation{At: s, Mechanism: mechanism})
}
