package main

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testHelperMain()
	testscript.Main(m, map[string]func(){
		"childproof": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
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
	})
}
