package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
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
				if within(*d.Subject, l.Ranges.Whole) {
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
