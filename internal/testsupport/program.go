package testsupport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildProgram builds the main package in dir (a directory as go build
// takes it, relative to the test's working directory) once for a test
// binary, from its TestMain, and returns the program's path and a func
// that removes it. It is built without the test binary's race detector.
// When the environment variable env is set, the program is its value (a
// test binary that its own tests run: its parent's build) and nothing is
// built or removed; otherwise BuildProgram sets env to the path, for
// those children.
func BuildProgram(dir, env string) (string, func(), error) {
	if p := os.Getenv(env); p != "" {
		return p, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "childproof-program-")
	if err != nil {
		return "", nil, err
	}
	remove := func() { os.RemoveAll(tmp) }
	prog := filepath.Join(tmp, filepath.Base(dir))
	if out, err := exec.Command("go", "build", "-o", prog, dir).CombinedOutput(); err != nil {
		remove()
		return "", nil, fmt.Errorf("go build %s: %w\n%s", dir, err, out)
	}
	os.Setenv(env, prog)
	return prog, remove, nil
}
