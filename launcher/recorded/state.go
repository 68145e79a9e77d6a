package recorded

import (
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/spec"
)

// State is the state dir a recorded launch is read from, and how its
// spec file is read again. It is safe for concurrent use as its Store is,
// once set up.
type State struct {
	*statedir.Store
	// ReadSpec reads the launch called name from the spec file at path,
	// with vars as the spec's variables, as a command that launches
	// nothing reads it (launcher.SpecReader). Nil: no spec file is read,
	// and a record that keeps no selector is not re-selected.
	ReadSpec func(path, name string, vars map[string]string) (*spec.Launch, error)
}
