package main

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testHelperMain()
	testscript.Main(m, map[string]func(){
		"childproof": func() {
			ctx, _ := signalContext()
			os.Exit(runOn(ctx, testGOOS(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// testGOOS is the platform the test binary's childproof acts as:
// CHILDPROOF_TEST_GOOS (scripts simulate macOS and Windows with it), else
// this one.
func testGOOS() string {
	if goos := os.Getenv("CHILDPROOF_TEST_GOOS"); goos != "" {
		return goos
	}
	return runtime.GOOS
}

// TestScript runs the CLI scripts in testdata/script. Each command's
// behaviour has its own .txtar file there.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("CHILDPROOF_STATE_DIR", env.WorkDir+"/.state")
			// A -race binary sleeps 1 s at exit by default; each script
			// runs childproof many times.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			return nil
		},
		// [root]: the test runs as root (chown, the state path walk, user = … launches).
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}
