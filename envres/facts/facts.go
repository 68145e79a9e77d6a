package facts

import "github.com/childproof/childproof/envres/script"

// Site is a place in a file, with the chain of sources, execs and calls
// that led there. It is plain data, safe for concurrent use while no one
// changes it.
type Site struct {
	script.Pos
	// Chain is the chain that led to the place, without the place itself.
	Chain []script.Pos
	// InString is set when the place is inside a string run as a script
	// (bash -c '…', a here-document, a package.json script): an edit
	// there is an edit of the string.
	InString bool
}

// Activation is an environment activation (conda activate, module load …).
// It is plain data, safe for concurrent use while no one changes it.
type Activation struct {
	At        Site
	Mechanism string // as written, for the message
}

// Background is a launch in the background not waited for. It is plain
// data, safe for concurrent use while no one changes it.
type Background struct {
	At     Site
	Nohup  bool
	Forked bool // setsid -f
	// Helper is set when the process went on to start its worker after
	// it (exec'd it, or ran it in the foreground as its last command): the
	// launch is a helper nobody supervises, not the worker.
	Helper bool
}

// Bind is a worker argument that binds all interfaces. It is plain data,
// safe for concurrent use while no one changes it.
type Bind struct {
	At Site
	// Default names the variable whose default gives the address
	// (--bind "${HOST:-0.0.0.0}:8000"), "" when the address is written
	// as it is or known from the script's own assignments.
	Default string
}

// AliasSet is an assignment or export of a no-op alias. It is plain data,
// safe for concurrent use while no one changes it.
type AliasSet struct {
	At         Site
	Name, Real string
}

// ChangeKind says how a statement changed a protected variable.
type ChangeKind string

// The kinds of change.
const (
	// ChangeUnset is unset NAME or env -u NAME.
	ChangeUnset ChangeKind = "unset"
	// ChangeUnexport is export -n NAME.
	ChangeUnexport ChangeKind = "unexport"
	// ChangeAssign is an assignment by the script itself.
	ChangeAssign ChangeKind = "assign"
	// ChangeLoad is an env-file load that assigns the name.
	ChangeLoad ChangeKind = "load"
	// ChangeFill is a load that fills only unset or empty names, over an
	// empty override.
	ChangeFill ChangeKind = "fill"
)

// Change is a statement that changed a protected variable on a path that
// reaches a worker. It is plain data, safe for concurrent use while no one
// changes it.
type Change struct {
	// At is the statement (a function's outermost call when the change
	// is made inside the function; In then says where).
	At   Site
	Kind ChangeKind
	// Var is the protected variable.
	Var string
	// Value says what the change gave Var ("a different value", "the
	// value of X", "… on some paths"); "" for unsets and fills.
	Value string
	// Later is set when a later statement changes Var again: this change
	// does not decide the worker's value.
	Later bool
	// Load describes the env file of a load, as written ("" otherwise).
	Load string
	// In is " (in function F, file:line)" when the change is made inside
	// a function, else "".
	In string
	// NoWorker is set when the change reaches the end of a file that
	// starts no worker: it reaches whatever sources the file.
	NoWorker bool
	// Source and Read are, for a load, where Var's value comes from and
	// the env file read (Read.Path "" when none).
	Source EnvSource
	Read   FileRead
}

// Load is an env-file load into the exported environment that reaches a
// worker, or an env file that does not parse. It is plain data, safe for
// concurrent use while no one changes it.
type Load struct {
	At Site
	// What describes the file as written ("" when not known).
	What string
	// Names are the names the load sets for the worker (not protected
	// ones: those are Changes), sorted; nil when Unresolved.
	Names []string
	// Unresolved is set when the file cannot be resolved statically.
	Unresolved bool
	// Unreadable is set, with Unresolved, when the path is known but the
	// file cannot be read here (missing, or not readable): that it loads
	// into the exported environment is known; which names it sets is not.
	Unreadable bool
	// ParseError is set (to the reason) for an env file that does not
	// parse; the other fields but At are then zero.
	ParseError string
	// In and NoWorker are as in Change.
	In       string
	NoWorker bool
	// Read is the env file read (Path "" when none).
	Read FileRead
}

// Wrapper is a wrapper (env -i, sudo, su, a login or interactive shell,
// a shebang's options) that a worker starts under. It is plain data, safe
// for concurrent use while no one changes it.
type Wrapper struct {
	// Rule is the wrapper's rule: wrapper.EnvReset, wrapper.LoginShell or
	// wrapper.InteractiveShell.
	Rule string
	At   Site
	// Message says what the wrapper does, by its manual.
	Message string
	// Variables are the protected variables it drops or changes.
	Variables []string
}

// Unchecked is a place the walk cannot follow: a sourced or exec'd path
// that is not known statically or cannot be read, or (Facts.Unparsed) a
// script that does not parse. It is plain data, safe for concurrent use
// while no one changes it.
type Unchecked struct {
	At Site
	// Message says what is not checked and why.
	Message string
}

// Facts are the facts of one analysis (every script linted), which the
// rules report from. They are plain data, safe for concurrent use while no
// one changes them.
type Facts struct {
	// Protected are the protected variables' names, sorted.
	Protected   []string
	Changes     []Change
	Loads       []Load
	Wrapped     []Wrapper
	Unchecked   []Unchecked
	Unparsed    []Unchecked
	Activations []Activation
	Background  []Background
	// Binds are the worker arguments that bind all interfaces.
	Binds []Bind
	// Pidfiles are the commands that write $! to a file.
	Pidfiles  []Site
	AliasSets []AliasSet
}

// FileRead is a file a finding depends on. It is plain data, safe for
// concurrent use while no one changes it.
type FileRead struct {
	// Path is absolute; Shown is how findings name it (relative to the
	// lint directory, loaded values masked).
	Path, Shown string
}

// EnvSource is the env file an env-file-clobber finding's variable comes
// from. It is plain data, safe for concurrent use while no one changes it.
type EnvSource struct {
	Variable string
	// File is the absolute path of the env file the load read; empty
	// when the value does not come from a file the chain only reads.
	File string
	// Generated is set when the chain itself writes File (a redirect to
	// it): an edit would be overwritten.
	Generated bool
	// Overwritten is set when a later statement changes the variable
	// again: this load does not decide the worker's value.
	Overwritten bool
}
