package relaunch

// EnvFileError is a failure to edit an env file of Options.InEnvFile, or
// to read or write one the round edits or puts back: the override Name's
// ("" when it is not one override's), in File, with what happened as
// Err. A caller words it in its own terms (the childproof command names
// its --in-env-file flag). It is safe for concurrent use while no one
// changes its fields.
type EnvFileError struct {
	// Name is the override whose edit failed; "": not one override's.
	Name string
	// File is the env file.
	File string
	// Err says what happened (it names File where the cause does not).
	Err error
}

func (e *EnvFileError) Error() string {
	what := "Options.InEnvFile"
	if e.Name != "" {
		what += "[" + e.Name + "]"
	}
	return what + ": " + e.Err.Error()
}

// Unwrap is e's cause, Err.
func (e *EnvFileError) Unwrap() error { return e.Err }
