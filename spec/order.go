package spec

import (
	"fmt"
	"strings"
)

// StartOrder returns the named launches of launches (every launch when
// names is empty) and, transitively, the launches they depend on, each
// after its dependencies; otherwise in the order given. The launches must be valid (no
// unknown name, no cycle).
func StartOrder(launches []*Launch, names ...string) ([]*Launch, error) {
	byName := map[string]*Launch{}
	for _, la := range launches {
		byName[la.Name] = la
	}
	want := map[string]bool{}
	var add func(n string) error
	add = func(n string) error {
		la := byName[n]
		if la == nil {
			return &LaunchNameError{Name: n, Names: launchNames(launches)}
		}
		if want[n] {
			return nil
		}
		want[n] = true
		for _, d := range la.DependsOn {
			if err := add(d); err != nil {
				return err
			}
		}
		return nil
	}
	if len(names) == 0 {
		names = launchNames(launches)
	}
	for _, n := range names {
		if err := add(n); err != nil {
			return nil, err
		}
	}
	var out []*Launch
	done := map[string]bool{}
	var place func(la *Launch)
	place = func(la *Launch) {
		if done[la.Name] {
			return
		}
		done[la.Name] = true
		for _, d := range la.DependsOn {
			if dep := byName[d]; dep != nil {
				place(dep)
			}
		}
		out = append(out, la)
	}
	for _, la := range launches {
		if want[la.Name] {
			place(la)
		}
	}
	return out, nil
}

func launchNames(launches []*Launch) []string {
	out := make([]string, len(launches))
	for i, l := range launches {
		out[i] = l.Name
	}
	return out
}

// LaunchNameError is a SPEC:NAME selection that does not pick exactly one
// launch: Name is unknown, or empty with several launches in the file. It
// is plain data, safe for concurrent use while no one changes it.
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
