package enginetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bin and mockLLM are the childproof and mock-llm binaries built for this
// run, in a directory every user may read (the engines run them).
var bin, mockLLM string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "childproof-enginetest-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = filepath.Join(dir, "childproof")
	mockLLM = filepath.Join(dir, "mock-llm")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	for out, pkg := range map[string]string{bin: "./cmd/childproof", mockLLM: "./examples/mock-llm"} {
		build := exec.Command("go", "build", "-o", out, pkg)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, b)
			os.Exit(2)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the module's root directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// needRoot skips the test unless it runs as root.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the engines' daemons run as root (CI runs as root)")
	}
}

// needPrograms skips the test unless every program (→ its Debian package)
// is installed.
func needPrograms(t *testing.T, programs map[string]string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	var missing []string
	for prog, pkg := range programs {
		p, err := exec.LookPath(prog)
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s (apt-get install %s)", prog, pkg))
			continue
		}
		paths[prog] = p
	}
	if len(missing) > 0 {
		t.Skipf("not installed: %s", strings.Join(missing, ", "))
	}
	return paths
}

// waitFor polls cond until it is true or timeout passes; it fails the
// test with what, and cond's last message, on a time-out. The polls are
// 50 ms apart at first and at most 250 ms apart later: a poll of a
// cluster or a container forks a command (scontrol, journalctl under
// nsenter) that costs about 20 ms of CPU.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for pause := 50 * time.Millisecond; ; pause = min(pause*3/2, 250*time.Millisecond) {
		ok, msg := cond()
		if ok {
			return
		}
		last = msg
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s; last: %s", what, timeout, last)
		}
		time.Sleep(pause)
	}
}

// writeFiles writes files (path relative to dir → contents; a path ending
// in .sh is made executable).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// export runs childproof export with args and returns what it wrote.
func export(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"export"}, args...)...).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("childproof export %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return string(out)
}
