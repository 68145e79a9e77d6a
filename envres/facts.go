package envres

import "github.com/childproof/childproof/envres/interp"

// The facts the walk records and the rules report from are interp's; these
// are their names in envres. Each is plain data, safe for concurrent use
// while no one changes it.
type (
	// Site is a place in a file, with the chain of sources, execs and
	// calls that led there.
	Site = interp.Site
	// Activation is an environment activation (conda activate, module
	// load …).
	Activation = interp.Activation
	// Background is a launch in the background not waited for.
	Background = interp.Background
	// Bind is a worker argument that binds all interfaces.
	Bind = interp.Bind
	// AliasSet is an assignment or export of a no-op alias.
	AliasSet = interp.AliasSet
	// ChangeKind says how a statement changed a protected variable.
	ChangeKind = interp.ChangeKind
	// Change is a statement that changed a protected variable on a path
	// that reaches a worker.
	Change = interp.Change
	// Load is an env-file load into the exported environment that reaches
	// a worker, or an env file that does not parse.
	Load = interp.Load
	// Wrapper is a wrapper (env -i, sudo, su, a login or interactive
	// shell, a shebang's options) that a worker starts under.
	Wrapper = interp.Wrapper
	// Unchecked is a place the walk cannot follow, or (Pass.Unparsed) a
	// script that does not parse.
	Unchecked = interp.Unchecked
	// Facts are the facts of one analysis (every script linted), which
	// the rules report from through a Pass.
	Facts = interp.Facts
)

// The kinds of change.
const (
	// ChangeUnset is unset NAME or env -u NAME.
	ChangeUnset = interp.ChangeUnset
	// ChangeUnexport is export -n NAME.
	ChangeUnexport = interp.ChangeUnexport
	// ChangeAssign is an assignment by the script itself.
	ChangeAssign = interp.ChangeAssign
	// ChangeLoad is an env-file load that assigns the name.
	ChangeLoad = interp.ChangeLoad
	// ChangeFill is a load that fills only unset or empty names, over an
	// empty override.
	ChangeFill = interp.ChangeFill
)
