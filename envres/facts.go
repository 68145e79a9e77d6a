package envres

import "github.com/childproof/childproof/envres/facts"

// The facts the walk records and the rules report from are envres/facts's; these
// are their names in envres. Each is plain data, safe for concurrent use
// while no one changes it.
type (
	// Site is a place in a file, with the chain of sources, execs and
	// calls that led there.
	Site = facts.Site
	// Activation is an environment activation (conda activate, module
	// load …).
	Activation = facts.Activation
	// Background is a launch in the background not waited for.
	Background = facts.Background
	// Bind is a worker argument that binds all interfaces.
	Bind = facts.Bind
	// AliasSet is an assignment or export of a no-op alias.
	AliasSet = facts.AliasSet
	// ChangeKind says how a statement changed a protected variable.
	ChangeKind = facts.ChangeKind
	// Change is a statement that changed a protected variable on a path
	// that reaches a worker.
	Change = facts.Change
	// Load is an env-file load into the exported environment that reaches
	// a worker, or an env file that does not parse.
	Load = facts.Load
	// Wrapper is a wrapper (env -i, sudo, su, a login or interactive
	// shell, a shebang's options) that a worker starts under.
	Wrapper = facts.Wrapper
	// Unchecked is a place the walk cannot follow, or (Pass.Unparsed) a
	// script that does not parse.
	Unchecked = facts.Unchecked
	// Facts are the facts of one analysis (every script linted), which
	// the rules report from through a Pass.
	Facts = facts.Facts
)

// The kinds of change.
const (
	// ChangeUnset is unset NAME or env -u NAME.
	ChangeUnset = facts.ChangeUnset
	// ChangeUnexport is export -n NAME.
	ChangeUnexport = facts.ChangeUnexport
	// ChangeAssign is an assignment by the script itself.
	ChangeAssign = facts.ChangeAssign
	// ChangeLoad is an env-file load that assigns the name.
	ChangeLoad = facts.ChangeLoad
	// ChangeFill is a load that fills only unset or empty names, over an
	// empty override.
	ChangeFill = facts.ChangeFill
)

// FileRead is a file a finding depends on (facts.FileRead). It is plain
// data, safe for concurrent use while no one changes it.
type FileRead = facts.FileRead

// EnvSource is the env file an env-file-clobber finding's variable comes
// from (facts.EnvSource). It is plain data, safe for concurrent use while
// no one changes it.
type EnvSource = facts.EnvSource
