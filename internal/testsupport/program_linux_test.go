package testsupport

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestBuildProgramWithoutRace checks that a -race in GOFLAGS does not make
// BuildProgram's program a race build, and that remove deletes its
// directory.
func TestBuildProgramWithoutRace(t *testing.T) {
	t.Setenv("GOFLAGS", "-race")
	t.Setenv("CHILDPROOF_TEST_PROGRAM", "")
	prog, remove, err := BuildProgram("./testdata/program", "CHILDPROOF_TEST_PROGRAM")
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if got := os.Getenv("CHILDPROOF_TEST_PROGRAM"); got != prog {
		t.Errorf("CHILDPROOF_TEST_PROGRAM = %q, want %q", got, prog)
	}
	info, err := buildinfo.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			t.Errorf("%s is a race build (GOFLAGS=-race)", prog)
		}
	}
	remove()
	if _, err := os.Stat(filepath.Dir(prog)); !os.IsNotExist(err) {
		t.Errorf("after remove, %s: %v, want it gone", filepath.Dir(prog), err)
	}
}

// TestRemoveStalePrograms checks that only the directories of test
// binaries that no longer run are deleted: one named by this process's
// pid with another start time is, one with its own start time is not.
func TestRemoveStalePrograms(t *testing.T) {
	tmp := t.TempDir()
	pid := os.Getpid()
	start := startTime(pid)
	if start == 0 {
		t.Fatalf("no start time for this process (pid %d)", pid)
	}
	live := filepath.Join(tmp, fmt.Sprintf("%s%d-%d-1", programDirPrefix, pid, start))
	stale := filepath.Join(tmp, fmt.Sprintf("%s%d-%d-2", programDirPrefix, pid, start+1))
	other := filepath.Join(tmp, programDirPrefix+"x")
	for _, d := range []string{live, stale, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStalePrograms(tmp)
	for _, c := range []struct {
		dir  string
		kept bool
	}{{live, true}, {stale, false}, {other, true}} {
		_, err := os.Stat(c.dir)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s: kept %v, want %v (%v)", filepath.Base(c.dir), kept, c.kept, err)
		}
	}
}
