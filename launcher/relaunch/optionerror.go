package relaunch

import "strings"

// OptionError is a relaunch its Options refuse before anything is
// stopped: the fields at fault (Fields, by their Go names: "Round",
// "Unset", "Set", "InEnvFile"), the value they were given (Arg), and what
// is wrong (Err). A caller names the fields in its own terms with Say
// (the childproof command: its flags). It is safe for concurrent use
// while no one changes its fields.
type OptionError struct {
	// Fields are the Options fields at fault, each given Arg.
	Fields []string
	// Arg is the value they were given: a round number, an override's
	// name.
	Arg string
	// NotIn, when set, is the field Arg had to be in as well ("Set"):
	// Err is then nil.
	NotIn string
	// Err says what is wrong.
	Err error
}

func (e *OptionError) Error() string {
	return e.Say(func(f string) string { return "Options." + f })
}

// Say is e's message with each field named by name.
func (e *OptionError) Say(name func(field string) string) string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = name(f) + " " + e.Arg
	}
	msg := strings.Join(parts, " and ") + ": "
	if e.NotIn != "" {
		return msg + e.Arg + " is not a " + name(e.NotIn) + " name of this round"
	}
	return msg + e.Err.Error()
}

// Unwrap is e's cause, Err.
func (e *OptionError) Unwrap() error { return e.Err }
