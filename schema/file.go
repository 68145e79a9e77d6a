package schema

import (
	"fmt"
	"strings"
)

// Launch returns the launch block called name, or the only one when name
// is empty. It fails when name is unknown, or empty and the file has
// several launches; the error lists the names.
func (f *File) Launch(name string) (*Launch, error) {
	if f == nil || len(f.Launches) == 0 {
		return nil, fmt.Errorf("spec has no launch block")
	}
	if name == "" {
		if len(f.Launches) == 1 {
			return f.Launches[0], nil
		}
		return nil, &LaunchNameError{Path: f.Path, Names: f.Names()}
	}
	for _, l := range f.Launches {
		if l.Name == name {
			return l, nil
		}
	}
	return nil, &LaunchNameError{Path: f.Path, Name: name, Names: f.Names()}
}

// Names returns the launch names in source order.
func (f *File) Names() []string {
	out := make([]string, len(f.Launches))
	for i, l := range f.Launches {
		out[i] = l.Name
	}
	return out
}

// LaunchNameError is a SPEC:NAME selection that does not pick exactly one
// launch: Name is unknown, or empty with several launches in the file.
type LaunchNameError struct {
	Path  string
	Name  string
	Names []string
}

func (e *LaunchNameError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("%s has %d launches (%s); pick one with %s:NAME", e.Path, len(e.Names), strings.Join(e.Names, ", "), e.Path)
	}
	return fmt.Sprintf("%s has no launch named %q (it has %s)", e.Path, e.Name, strings.Join(e.Names, ", "))
}
