package interp

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/progs"
	"github.com/childproof/childproof/envres/internal/shape"
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
	if t := shape.NodeText(call); t != "" {
		return t
	}
	return mech
}

// reportActivation records an activation at s (env-activate reports it).
func (a *analyzer) reportActivation(s Site, mechanism string) {
	a.pass.Activations = fact(a.pass.Activations, Activation{At: s, Mechanism: mechanism})
}
