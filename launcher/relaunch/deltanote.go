package relaunch

import "fmt"

// DeltaNote is a KindDelta problem of a relaunch's report as data (the
// Problem's Note, its Message being Say(GoWords)): a caller that names
// the overrides and variables its own way words it with Say. It is safe
// for concurrent use while no one changes its fields.
type DeltaNote struct {
	// What says which delta it is.
	What DeltaWhat
	// Var is the variable it is about ("" for DeltaArgv).
	Var string
	// Argv says how the command line changed (DeltaArgv).
	Argv string
}

// DeltaWhat is which delta a DeltaNote is.
type DeltaWhat uint8

// The deltas a DeltaNote says.
const (
	// DeltaUnchanged: Var is in Options.Set but the recorded worker
	// already had that value.
	DeltaUnchanged DeltaWhat = iota + 1
	// DeltaArgv: the command line changed and no variable the caller
	// passed says so.
	DeltaArgv
	// DeltaWouldChange: before launch, Var would change on the worker
	// (the spec's env gives another value) but is not in Options.Set.
	DeltaWouldChange
	// DeltaDropped: before launch, Var was an override of the recorded
	// launch and nothing sets it now.
	DeltaDropped
)

// Words name, in a caller's terms, what sets an override (Set) and what
// passes the spec's variables (Var). They are plain data, safe for
// concurrent use while no one changes them.
type Words struct {
	Set, Var string
}

// GoWords are the Go names: Options.Set, Options.Provenance.Vars.
var GoWords = Words{Set: "Options.Set", Var: "Options.Provenance.Vars"}

// Say is n's message in w's words.
func (n *DeltaNote) Say(w Words) string {
	switch n.What {
	case DeltaUnchanged:
		return fmt.Sprintf("%s: declared with %s but unchanged on the worker: the recorded worker already had this value", n.Var, w.Set)
	case DeltaArgv:
		return fmt.Sprintf("the command line changed without a %s saying so: %s", w.Var, n.Argv)
	case DeltaWouldChange:
		return fmt.Sprintf("%s would change on the worker but is not a %s name (the spec's env gives another value than the recorded worker had)", n.Var, w.Set)
	case DeltaDropped:
		return fmt.Sprintf("%s was an override of the recorded launch (a %s of its round?) and nothing sets it now: repeat %s %s=… to keep it", n.Var, w.Set, w.Set, n.Var)
	}
	return ""
}

// String is Say(GoWords).
func (n *DeltaNote) String() string { return n.Say(GoWords) }
