package group

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
)

// Skip says why DownRecorded signalled nothing for a launch.
type Skip int

const (
	Ran         Skip = iota // not skipped: a stop ran (Result, or Err)
	NotRecorded             // no record: nothing to stop
	OtherSpec               // recorded from another spec file: left alone
	Unreadable              // the record is unreadable (Err): nothing signalled
)

// Stopped is what DownRecorded did for one launch.
type Stopped struct {
	Name   string
	Skip   Skip
	Record *launcher.Record     // the record found (with OtherSpec: the other spec's)
	Result *launcher.StopResult // what the stop did, when it ran without error
	Err    error                // the stop's error (Ran), or the record's (Unreadable)
}

var errOtherSpec = errors.New("recorded from another spec file")

// DownRecorded stops the recorded launches of launches, read from st —
// what `childproof down` does — in the order given, which is a stop
// order (schema.File.StopOrder's: each launch before the launches it
// depends on). Each is stopped as launcher.StopLaunch does: SIGTERM,
// SIGKILL after grace, a lock held by a launch in progress waited for up
// to grace; and only a record made from the launch's own spec file. One
// launch's failure does not stop the others' turn; it returns one
// Stopped per launch, in that order.
func DownRecorded(ctx context.Context, p proc.FS, st *launcher.State, launches []*schema.Launch, grace time.Duration) []Stopped {
	out := make([]Stopped, 0, len(launches))
	for _, l := range launches {
		rec, res, err := launcher.StopLaunch(ctx, p, st, l.Name, grace, grace, func(rec *launcher.Record) error {
			if rec.SpecPath != "" && l.SpecPath != "" && filepath.Clean(rec.SpecPath) != filepath.Clean(l.SpecPath) {
				return errOtherSpec
			}
			return nil
		})
		s := Stopped{Name: l.Name, Record: rec, Result: res, Err: err}
		switch {
		case errors.Is(err, errOtherSpec):
			s.Skip, s.Err = OtherSpec, nil
		case errors.Is(err, fs.ErrNotExist):
			s.Skip, s.Err = NotRecorded, nil
		case rec == nil && err != nil && !errors.Is(err, launcher.ErrLocked):
			s.Skip = Unreadable
		}
		out = append(out, s)
	}
	return out
}
