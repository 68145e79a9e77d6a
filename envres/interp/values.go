package interp

import "github.com/childproof/childproof/envres/internal/expand"

// The walk's instances of envres/internal/expand's generic types: a
// variable's origins are the walk's events, and an evaluator carries the
// walk's state and file (walkCtx) to hand back to it.
type (
	varState  = expand.VarState[event]
	evaluator = expand.Evaluator[event, walkCtx]
)
