package logread

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/childproof/childproof/internal/logtail"
	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Options says which lines of a launch's log Read gives. It is plain
// data, safe for concurrent use while no one changes it.
type Options struct {
	// Last is how many of the log's last lines to give first; negative:
	// every line; zero: none (Follow then gives only new ones).
	Last int
	// Follow keeps giving lines as they are written, also across a new
	// launch of the same name (the log rotated to NAME.log.1), until ctx
	// is done or the launch has not been running (Running) for two
	// checks a second apart and the log is drained; false: ReadLog
	// returns after the Last lines.
	Follow bool
}

// Read gives emit the lines of the log of launch name in the state dir
// s, each without its newline. They are masked with every secret known of
// the launch: its record's, the log mask its last start wrote, and those
// of the spec its record names, read with readSpec (launcher.State's
// ReadSpec; nil: none) without launching. No log is a *failure.Error of
// Outcome outcome.NotRecorded.
func Read(ctx context.Context, s *statedir.Store, readSpec func(path, name string, vars map[string]string) (*spec.Launch, error), name string, o Options, emit func(line string)) error {
	// The log and its mask are childproof's own, or not read at all.
	for _, p := range []string{s.LogPath(name), s.Files.Mask(name)} {
		if err := statedir.CheckEntry(p, statedir.FileType); err != nil {
			return err
		}
	}
	t, err := logtail.Open(s.LogPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return &failure.Error{Outcome: outcome.NotRecorded, Err: err, Msg: fmt.Sprintf("no log of a launch %q in %s", name, s.Dir)}
	}
	if err != nil {
		return fmt.Errorf("log of %q: %w", name, err)
	}
	defer t.Close()
	rec, _ := s.Load(name)
	m := mask.Of(s, mask.Known{Spec: recordedLaunch(readSpec, rec), Record: rec, Log: name})
	masked := func(line string) { emit(m.Text(line)) }
	if err := t.Last(o.Last, masked); err != nil {
		return fmt.Errorf("log of %q: %w", name, err)
	}
	if !o.Follow {
		return nil
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		idle := 0
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-fctx.Done():
				return
			case <-tick.C:
			}
			if Running(s, name) {
				idle = 0
			} else if idle++; idle >= 2 {
				cancel()
				return
			}
		}
	}()
	if err := t.Follow(fctx, 100*time.Millisecond, masked); err != nil {
		return fmt.Errorf("log of %q: %w", name, err)
	}
	return nil
}

// Running reports whether the recorded launch name of the state dir s
// runs: its record is readable and trusted, it was not stopped, and its
// worker is still the process it started (verify.Alive, read from /proc).
func Running(s *statedir.Store, name string) bool {
	rec, err := s.Load(name)
	return err == nil && rec.Stopped == nil && rec.Worker.Check(proc.Default) == verify.Alive
}

// recordedLaunch is the launch rec names, loaded from its spec file with
// readSpec as a command that launches nothing loads it (for the secrets
// it declares); nil when there is none or it does not load.
func recordedLaunch(readSpec func(path, name string, vars map[string]string) (*spec.Launch, error), rec *statedir.Record) *spec.Launch {
	if rec == nil || rec.SpecPath == "" || readSpec == nil {
		return nil
	}
	l, err := readSpec(rec.SpecPath, rec.Name, nil)
	if err != nil {
		return nil
	}
	return l
}
