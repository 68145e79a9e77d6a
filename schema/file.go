package schema

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// File is one decoded spec file. Its methods only read it: a File is safe
// for concurrent use while no one changes it.
type File struct {
	// Path is the spec file's path as given to Load.
	Path string
	// Launches are the file's launch blocks, in source order.
	Launches []*Launch
	// Aliases maps alias names to the real variable (alias blocks only;
	// see BuiltinAliases for the built-in ones).
	Aliases map[string]string
	// Hash is the hex SHA-256 of the spec file's bytes.
	Hash string
}

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

// Concerning returns those of diags (the file's warnings) that concern
// the selected launches, in order: a diagnostic inside the block of a
// launch that is not selected is left out; one outside every launch block
// (a variable, the file) or without a range is kept.
func (f *File) Concerning(diags hcl.Diagnostics, selected ...*Launch) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		keep := true
		if d.Subject != nil {
			for _, l := range f.Launches {
				if within(*d.Subject, HCLRange(l.Ranges.Whole)) {
					keep = slices.Contains(selected, l)
					break
				}
			}
		}
		if keep {
			out = append(out, d)
		}
	}
	return out
}

// within reports whether r lies inside outer.
func within(r, outer hcl.Range) bool {
	return r.Filename == outer.Filename && outer.Start.Byte <= r.Start.Byte && r.End.Byte <= outer.End.Byte
}
