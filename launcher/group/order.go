package group

import (
	"fmt"

	"github.com/childproof/childproof/spec"
)

// Order returns launches in start order: each after the launches it
// depends on (DependsOn), otherwise in the order given. A dependency that
// is not among launches, a duplicate name or a cycle is an error.
func Order(launches []*spec.Launch) ([]*spec.Launch, error) {
	seen := map[string]bool{}
	for _, l := range launches {
		if l == nil || l.Name == "" {
			return nil, fmt.Errorf("group: a launch has no name")
		}
		if seen[l.Name] {
			return nil, fmt.Errorf("group: two launches are called %q", l.Name)
		}
		seen[l.Name] = true
	}
	out, err := spec.StartOrder(launches)
	if err != nil {
		return nil, fmt.Errorf("group: %w", err)
	}
	placed := map[string]bool{}
	for _, l := range out {
		for _, d := range l.DependsOn {
			if !placed[d] {
				return nil, &CycleError{Launch: l.Name, DependsOn: d}
			}
		}
		placed[l.Name] = true
	}
	return out, nil
}

// CycleError reports launches whose DependsOn make a cycle: Launch
// depends on DependsOn, which depends (maybe through others) on Launch,
// so Order could place neither first. It is safe for concurrent use while
// no one changes its fields.
type CycleError struct {
	Launch, DependsOn string
}

func (e *CycleError) Error() string {
	return fmt.Sprintf("group: %q depends on %q, which depends on it (a DependsOn cycle)", e.Launch, e.DependsOn)
}
