package testsupport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// programDirPrefix starts the name of the directories BuildProgram builds
// into: programDirPrefix + PID + "-" + START + "-" + random, PID and START
// being the building test binary's pid and start time (in clock ticks
// since boot, /proc/PID/stat's field 22; 0 where there is no /proc).
const programDirPrefix = "childproof-program-"

// BuildProgram builds the main package in dir (a directory as go build
// takes it, relative to the test's working directory) once for a test
// binary, from its TestMain, and returns the program's path and a func
// that removes it. It is built without the race detector, whatever the
// test binary and GOFLAGS say. When the environment variable env is set,
// the program is its value (a test binary that its own tests run: its
// parent's build) and nothing is built or removed; otherwise
// BuildProgram sets env to the path, for those children.
//
// The program lives in a new directory under os.TempDir that remove
// deletes; TestMain calls it after m.Run whether tests passed or failed.
// A test binary that never gets there (a test's panic, -test.timeout,
// SIGKILL) leaves its directory; on Linux the next BuildProgram deletes
// those of test binaries that no longer run.
func BuildProgram(dir, env string) (string, func(), error) {
	if p := os.Getenv(env); p != "" {
		return p, func() {}, nil
	}
	removeStalePrograms(os.TempDir())
	tmp, err := os.MkdirTemp("", fmt.Sprintf("%s%d-%d-", programDirPrefix, os.Getpid(), startTime(os.Getpid())))
	if err != nil {
		return "", nil, err
	}
	remove := func() { os.RemoveAll(tmp) }
	prog := filepath.Join(tmp, filepath.Base(dir))
	// -race=false wins over a -race in GOFLAGS: a command line flag
	// overrides GOFLAGS.
	if out, err := exec.Command("go", "build", "-race=false", "-o", prog, dir).CombinedOutput(); err != nil {
		remove()
		return "", nil, fmt.Errorf("go build %s: %w\n%s", dir, err, out)
	}
	os.Setenv(env, prog)
	return prog, remove, nil
}

// removeStalePrograms deletes BuildProgram's directories in tmp whose test
// binary no longer runs: no process has its pid, or the one that has it
// started at another time. Without /proc it deletes nothing.
func removeStalePrograms(tmp string) {
	if startTime(os.Getpid()) == 0 {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, programDirPrefix+"*"))
	for _, d := range dirs {
		f := strings.Split(strings.TrimPrefix(filepath.Base(d), programDirPrefix), "-")
		if len(f) != 3 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		start, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 || start == 0 {
			continue
		}
		if startTime(pid) != start {
			os.RemoveAll(d)
		}
	}
}

// startTime is the start time of process pid in clock ticks since boot
// (/proc/PID/stat's field 22), or 0 when there is no such process or no
// /proc.
func startTime(pid int) uint64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// The fields after the comm, which may hold spaces and parentheses,
	// start at field 3: the start time is the 20th of them.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}
