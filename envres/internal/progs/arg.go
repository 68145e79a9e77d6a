package progs

// Arg is a word of a command line: its text when it is known statically.
// It is plain data, safe for concurrent use while no one changes it.
type Arg struct {
	S     string
	Known bool
}

// word returns the text of args[i] when it is known, else "".
func word(args []Arg, i int) string {
	if i < len(args) && args[i].Known {
		return args[i].S
	}
	return ""
}

// optSet returns a set of options.
func optSet(opts ...string) map[string]bool {
	m := make(map[string]bool, len(opts))
	for _, o := range opts {
		m[o] = true
	}
	return m
}
