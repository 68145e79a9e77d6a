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
	// How and Source say how Var differs and where it comes from
	// (DeltaUnexpected); EnvFile is the launch's env file, named when
	// Source is SourceEnvFile.
	How     DeltaHow
	Source  DeltaSource
	EnvFile string
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
	// DeltaUnexpected: after launch, Var differs on the relaunched
	// worker (How) but is not in Options.Set; Source says why.
	DeltaUnexpected
)

// Words name, in a caller's terms, what sets an override (Set) and what
// passes the spec's variables (Var). They are plain data, safe for
// concurrent use while no one changes them.
type Words struct {
	Set, Var string
	// EnvFile names the launch's env file.
	EnvFile string
}

// GoWords are the Go names: Options.Set, Options.Provenance.Vars,
// Launch.EnvFile.
var GoWords = Words{Set: "Options.Set", Var: "Options.Provenance.Vars", EnvFile: "EnvFile"}

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
	case DeltaUnexpected:
		return n.unexpected(w)
	}
	return ""
}

// unexpected is the message of a DeltaUnexpected note in w's words.
func (n *DeltaNote) unexpected(w Words) string {
	what := map[DeltaHow]string{DeltaChanged: "changed", DeltaAdded: "appeared", DeltaRemoved: "disappeared"}[n.How]
	msg := fmt.Sprintf("%s %s on the worker but is not a %s name", n.Var, what, w.Set)
	switch n.Source {
	case SourceEnvFile:
		msg += fmt.Sprintf(" (it comes from %s %s: edited since the recorded launch?)", w.EnvFile, n.EnvFile)
	case SourceEnv:
		msg += " (it is in the spec's env: the spec was edited since the recorded launch?)"
	case SourceInherit:
		msg += " (inherited from the caller: relaunch from the same environment as the recorded launch)"
	case SourcePreviousSet:
		msg += fmt.Sprintf(" (a %s of the recorded launch: repeat it to keep it)", w.Set)
	default:
		msg += " (set or removed by the launch chain, or by the caller)"
	}
	return msg
}

// String is Say(GoWords).
func (n *DeltaNote) String() string { return n.Say(GoWords) }
