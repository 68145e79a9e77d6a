package envres

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrNoClobber is EnvFileEdits' error when no env-file-clobber finding
// clobbers any of the names: there is no env file to write a value into.
var ErrNoClobber = errors.New("envres: no env file clobbers the names")

// BlockedError is EnvFileEdits' error for a name whose clobbering env
// file cannot take its value (Target.Blocked says why). It is plain data,
// safe for concurrent use while no one changes it.
type BlockedError struct {
	Name   string
	Target EnvFileTarget
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("envres: the env file that clobbers %s cannot take its value: %s", e.Name, e.Target.Blocked)
}

// String names b: "editable", "not-from-file", "several-files",
// "not-a-file" or "generated-file".
func (b Blocker) String() string {
	if s, ok := blockerNames[b]; ok {
		return s
	}
	return fmt.Sprintf("Blocker(%d)", int(b))
}

var blockerNames = map[Blocker]string{Editable: "editable", NotFromFile: "not-from-file", SeveralFiles: "several-files", NotAFile: "not-a-file", GeneratedFile: "generated-file"}

// NamedTarget is one name's EnvFileTarget. It is plain data, safe for
// concurrent use while no one changes it.
type NamedTarget struct {
	Name string
	EnvFileTarget
}

// EnvFileEdits decides relaunch --in-env-file for names: the env file to
// write each clobbered name's value into (EnvFileTargets), sorted by name,
// and res without the findings those edits fix (WithoutClobbers). When no
// name is clobbered it returns ErrNoClobber. When a name's target cannot
// be edited it returns a *BlockedError for the first such name, with the
// editable targets of the names before it (what would have been written)
// and a nil Result: nothing is to be edited then. res is not changed.
func (res *Result) EnvFileEdits(names []string) ([]NamedTarget, *Result, error) {
	targets := res.EnvFileTargets(names)
	if len(targets) == 0 {
		return nil, nil, ErrNoClobber
	}
	var out []NamedTarget
	for _, n := range slices.Sorted(maps.Keys(targets)) {
		t := targets[n]
		if t.Blocked != Editable {
			return out, nil, &BlockedError{Name: n, Target: t}
		}
		out = append(out, NamedTarget{Name: n, EnvFileTarget: t})
	}
	edited := make([]string, len(out))
	for i, e := range out {
		edited[i] = e.Name
	}
	return out, res.WithoutClobbers(edited), nil
}
