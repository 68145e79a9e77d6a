package main

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// teardownGrace is the longest a script's teardown waits after a launch's
// stop signal before SIGKILL (the launch's own stop timeout when shorter).
const teardownGrace = 3 * time.Second

// teardownDepth is how deep under $WORK stopLeftLaunches looks for state
// dirs: $WORK/.state, --state-dir $WORK/st/x and a default state dir
// under a script's own HOME ($WORK/home/.local/state/childproof).
const teardownDepth = 5

// stopLeftLaunches stops every launch that a state dir under work still
// records as running (its worker, root or log relay alive, not marked
// stopped), each through launcher.StopLaunch as the stop command stops
// it: by its record, only if the recorded fingerprints still match, never
// by name. It runs after each script, so that a failing script leaves no
// detached launch behind; it returns a line for each launch it stopped or
// could not stop. Where nothing is recorded it only lists a few
// directories.
func stopLeftLaunches(work string) []string {
	var notes []string
	for _, dir := range stateDirsUnder(work) {
		notes = append(notes, stopLeftIn(dir)...)
	}
	return notes
}

// stateDirsUnder lists the directories under work, down to teardownDepth,
// that hold a state dir's records directory with at least one record.
func stateDirsUnder(work string) []string {
	var dirs []string
	filepath.WalkDir(work, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.Count(strings.TrimPrefix(path, work), string(filepath.Separator)) > teardownDepth {
			return filepath.SkipDir
		}
		if d.Name() != statedir.RecordsDir {
			return nil
		}
		if recs, _ := filepath.Glob(filepath.Join(path, "*.json")); len(recs) > 0 {
			dirs = append(dirs, filepath.Dir(path))
		}
		return filepath.SkipDir
	})
	return dirs
}

// stopLeftIn is stopLeftLaunches for the state dir dir.
func stopLeftIn(dir string) []string {
	st, err := launcher.OpenState(dir)
	if err != nil {
		return []string{"teardown: state dir " + dir + ": " + err.Error()}
	}
	st.ReadSpec = schema.ReadLaunch
	recs, err := st.Records()
	if err != nil {
		return []string{"teardown: records of " + dir + ": " + err.Error()}
	}
	var notes []string
	for _, rec := range recs {
		if !leftRunning(rec) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 4*teardownGrace)
		grace := min(rec.StopGraceOr(0), teardownGrace)
		_, res, err := launcher.StopLaunch(ctx, proc.Default, st, rec.Name, grace, teardownGrace, nil)
		cancel()
		switch {
		case err != nil:
			notes = append(notes, "teardown: "+rec.Name+" in "+dir+": "+err.Error())
		case res != nil:
			notes = append(notes, "teardown: "+res.Text())
		}
	}
	return notes
}

// leftRunning reports whether rec is a launch not marked stopped whose
// worker, root or log relay still runs.
func leftRunning(rec *statedir.Record) bool {
	if rec.Stopped != nil {
		return false
	}
	alive := rec.Worker.Check(proc.Default) == verify.Alive || rec.Root.Check(proc.Default) == verify.Alive
	if rec.Relay != nil {
		alive = alive || rec.Relay.Check(proc.Default) == verify.Alive
	}
	return alive
}
