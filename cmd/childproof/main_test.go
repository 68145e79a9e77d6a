package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/launcher"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	launcher.RelayMain()
	testHelperMain()
	testscript.Main(scriptParallel{m}, map[string]func(){
		"childproof": func() {
			ctx, _ := signalContext()
			os.Exit(runOn(ctx, testGOOS(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// scriptsPerCPU is how many scripts run at once per CPU when go test is not
// given -parallel: a script waits on the processes it starts far more than
// it computes (under -race, 20 of the longest scripts took 125 s two at a
// time and 66 s six at a time, for the same 60 CPU-seconds).
const scriptsPerCPU = 3

// scriptParallel runs the tests with -test.parallel at scriptsPerCPU times
// GOMAXPROCS unless the command line sets it. Only TestScript's scripts
// run in parallel in this package.
type scriptParallel struct{ m *testing.M }

func (s scriptParallel) Run() int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(scriptsPerCPU*runtime.GOMAXPROCS(0)))
	}
	return s.m.Run()
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
	// Each script's ports, taken here (in the test goroutine) and held by
	// this binary for the whole run: see scriptPort.
	scripts, _ := filepath.Glob("testdata/script/*.txtar")
	pool := make(chan string, len(scripts))
	for range scripts {
		ps := make([]string, scriptPorts)
		for i := range ps {
			port, err := testsupport.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			ps[i] = strconv.Itoa(port)
		}
		pool <- strings.Join(ps, ",")
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			select {
			case ps := <-pool:
				env.Setenv("CHILDPROOF_TEST_PORTS", ps)
			default:
				return fmt.Errorf("no ports left for this script (one set per testdata/script file)")
			}
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
