package resolve

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/facts"
	"github.com/childproof/childproof/envres/internal/expand"
)

// Origin is what the resolver reads of a statement that set a variable
// (one of the walk's events). It is plain data, safe for concurrent use
// while no one changes it.
type Origin struct {
	Kind Kind
	At   facts.Site
	// What describes a load's env file, as the load does.
	What string
	// InFunc is set for a statement inside a function: At is its call.
	InFunc bool
	// Unresolved marks a load whose file could not be resolved.
	Unresolved bool
}

// Kind says what an origin did.
type Kind uint8

// The kinds of origin.
const (
	Other  Kind = iota // unset, export -n
	Assign             // a plain or export assignment in the script
	Load               // an env-file load
)

// Walk is what the resolver asks of the walk: E are its events (a value's
// origins) and C its context, as in envres/internal/expand.
type Walk[E, C any] interface {
	// Origin says what event e did.
	Origin(e *E) Origin
	// Fork returns an evaluator like ev on a copy of its state.
	Fork(ev *expand.Evaluator[E, C]) *expand.Evaluator[E, C]
	// Syntax returns the syntax of the script findings call name, or nil.
	Syntax(name string) *syntax.File
}
