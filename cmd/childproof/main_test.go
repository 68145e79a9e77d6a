package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/childproof/childproof/cmd/childproof/internal/scripthelper"
	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/launcher"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	launcher.RelayMain()
	scripthelper.Main()
	testscript.Main(scriptParallel{m}, map[string]func(){
		"childproof": func() {
			ctx, _ := signalContext()
			os.Exit(runOn(ctx, scripthelper.GOOS(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
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
	set, fuzzing := false, false
	flag.Visit(func(f *flag.Flag) {
		set = set || f.Name == "test.parallel"
		fuzzing = fuzzing || f.Name == "test.fuzz" || f.Name == "test.fuzzworker" || f.Name == "test.list"
	})
	if !set {
		flag.Set("test.parallel", strconv.Itoa(scriptsPerCPU*runtime.GOMAXPROCS(0)))
	}
	if !fuzzing {
		dir, err := buildScriptBinary()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		os.Setenv("PATH", filepath.Join(dir, "race")+string(filepath.ListSeparator)+os.Getenv("PATH"))
		if raceEnabled {
			staticBin = filepath.Join(dir, "plain")
		}
	}
	return s.m.Run()
}

// staticBin is the directory of the scripts' childproof built without
// -race, for the scripts staticScript accepts.
var staticBin string

// childproofFor is the childproof a test runs for args: the build
// without -race when args' command is one of staticCommands (for the
// reason staticScript gives), else the one on $PATH.
func childproofFor(args []string) string {
	if staticBin != "" && len(args) > 0 && staticCommands[args[0]] {
		return filepath.Join(staticBin, "childproof")
	}
	return "childproof"
}

// buildScriptBinary builds the childproof the scripts and this package's
// tests run from $PATH (exec childproof, a spec's command, a detached
// launch's log relay) into a new directory: the command with the test
// binary's hooks (-tags childprooftest: scripthelper's server, port helper
// and CHILDPROOF_TEST_GOOS), under -race when this test binary is. It is
// the same code the test binary's childproof runs, without what only the
// tests link (testscript, go-cmp, jsonschema, whose init compiles five
// metaschemas): under -race each run of it took 0.105 CPU-s and 4,600
// page faults where the test binary's took 0.17 CPU-s and 7,000, and the
// scripts run it about 1,650 times. It builds into dir/race (the -race
// build, when this test binary is one) and dir/plain (without -race, for
// static scripts: see staticScript) at once: each build's compile of the
// main package and its link run mostly on one CPU.
func buildScriptBinary() (string, error) {
	dir, err := os.MkdirTemp("", "childproof-scripts")
	if err != nil {
		return "", err
	}
	builds := []struct {
		sub  string
		race bool
	}{{"race", raceEnabled}}
	if raceEnabled {
		builds = append(builds, builds[0])
		builds[1].sub, builds[1].race = "plain", false
	}
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, b := range builds {
		args := []string{"build", "-tags", "childprooftest", "-o", filepath.Join(dir, b.sub, "childproof")}
		if b.race {
			args = append(args, "-race")
		} else {
			// (-race=false: a -race in GOFLAGS would make it a race build.)
			args = append(args, "-race=false")
		}
		wg.Go(func() {
			if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("building the scripts' childproof (go %s .): %w\n%s", strings.Join(args, " "), err, out)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// staticCommands are the commands that read their inputs and print, in
// one goroutine of childproof's own: they start, signal and look at no
// process.
var staticCommands = map[string]bool{
	"check": true, "lint": true, "import": true, "export": true,
	"completion": true, "help": true, "version": true, "install": true,
}

// staticScript reports whether a script's childproof runs only
// staticCommands: every childproof an exec line runs (itself, or in sh -c)
// is given one (or only --help or --version), nothing runs in the
// background and nothing is sent a signal. Such a script runs the
// childproof built without -race: the race detector reports only memory
// that two goroutines share, and these commands run in one (their code's
// own tests run under -race in their packages). Every other script, any
// that launches, stops or inspects processes, runs the -race build.
func staticScript(script string) bool {
	cmds, _, _ := strings.Cut(script, "\n-- ")
	for _, line := range strings.Split(cmds, "\n") {
		f := strings.Fields(line)
		for len(f) > 0 && (strings.HasPrefix(f[0], "[") || f[0] == "!" || f[0] == "?") {
			f = f[1:]
		}
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] == "kill" || f[0] == "signal" || strings.HasSuffix(f[len(f)-1], "&") {
			return false
		}
		if f[0] != "exec" {
			continue
		}
		// exec childproof …, and childproof run by what exec runs (sh -c
		// 'childproof lint …', an installed copy): the word after it.
		f = strings.Fields(strings.NewReplacer("'", " ", `"`, " ", ";", " ").Replace(line))
		for i, w := range f {
			if w != "childproof" && !strings.HasSuffix(w, "/childproof") {
				continue
			}
			static := true // --help, --version alone
			for _, a := range f[i+1:] {
				if a == "--help" || a == "--version" {
					continue
				}
				static = staticCommands[a]
				break
			}
			if !static {
				return false
			}
		}
	}
	return true
}

// TestScript runs the CLI scripts in testdata/script. Each command's
// behaviour has its own .txtar file there.
func TestScript(t *testing.T) {
	// Each script's ports, taken here (in the test goroutine) and held by
	// this binary for the whole run: see scripthelper.Port.
	scripts, _ := filepath.Glob("testdata/script/*.txtar")
	pool := make(chan string, len(scripts))
	for range scripts {
		ps := make([]string, scripthelper.Ports)
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
			// A script that fails leaves its detached launches running:
			// after each script, what the state dirs under $WORK still
			// record as running is stopped by record (never by name),
			// before testscript interrupts its background commands.
			work := env.WorkDir
			env.Defer(func() {
				for _, note := range stopLeftLaunches(work) {
					env.T().Log(note)
				}
			})
			name := strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
			if src, err := os.ReadFile(filepath.Join("testdata/script", name+".txtar")); err == nil && staticBin != "" && staticScript(string(src)) {
				env.Setenv("PATH", staticBin+string(filepath.ListSeparator)+env.Getenv("PATH"))
			}
			// A -race binary sleeps 1 s at exit by default; each script
			// runs childproof many times.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			return nil
		},
		// test-free-port [FILE] is childproof test-free-port (a port of
		// the script's in ./port or FILE) without an exec: the scripts
		// call it 65 times, and each run of the -race build costs about
		// 0.1 CPU-s.
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"test-free-port": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) > 1 {
					ts.Fatalf("usage: test-free-port [FILE]")
				}
				file := "port"
				if len(args) == 1 {
					file = args[0]
				}
				port, err := scripthelper.PortOf(ts.Getenv("CHILDPROOF_TEST_PORTS"), ts.Getenv("WORK"))
				ts.Check(err)
				ts.Check(os.WriteFile(ts.MkAbs(file), []byte(strconv.Itoa(port)), 0o644))
			},
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
