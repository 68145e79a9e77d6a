package relaunch

// DeltaHow is how a name differs between the recorded worker's environ
// and the relaunched worker's (DeltaName.How).
type DeltaHow string

// The ways a name differs.
const (
	DeltaChanged DeltaHow = "changed"
	// DeltaAdded: absent before.
	DeltaAdded DeltaHow = "added"
	// DeltaRemoved: absent now.
	DeltaRemoved DeltaHow = "removed"
)

// DeltaSource is where a changed name comes from, as far as the spec
// tells (DeltaName.Source).
type DeltaSource string

// The sources of a changed name.
const (
	SourceSet     DeltaSource = "set"
	SourceEnv     DeltaSource = "env"
	SourceEnvFile DeltaSource = "env_file"
	SourceInherit DeltaSource = "inherit"
	// SourcePreviousSet: a --set of the recorded launch.
	SourcePreviousSet DeltaSource = "previous set"
	// SourceChain: the dispatch chain, or nothing known.
	SourceChain DeltaSource = "chain"
)

// EnvFileHow is what relaunch --in-env-file did to an env file
// (EnvFileChange.How).
type EnvFileHow string

// The env file changes.
const (
	EnvFileEdited   EnvFileHow = "edited"
	EnvFileAppended EnvFileHow = "appended"
	EnvFileRestored EnvFileHow = "restored"
	// EnvFileKept: an edit that cannot be restored (its old value was
	// secret and not kept).
	EnvFileKept EnvFileHow = "kept"
)
