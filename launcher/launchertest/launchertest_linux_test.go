package launchertest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// TestMain lets the test binary be the server: "serve ADDR".
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		ln, err := net.Listen("tcp", os.Args[2])
		if err != nil {
			fmt.Println("listen:", err)
			os.Exit(2)
		}
		fmt.Println("serving on", ln.Addr())
		http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") }))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func serverSpec(t *testing.T) *schema.Launch {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	port := FreePort(t)
	return &schema.Launch{
		Name:    "srv",
		Command: []string{exe, "serve", fmt.Sprintf("127.0.0.1:%d", port)},
		Env:     map[string]string{"SERVER_KEY": "k"},
		Require: []string{"SERVER_KEY"},
		Ports:   []schema.Port{{Name: "http", Number: port}},
		Ready:   schema.Ready{HTTP: "/"},
	}
}

func TestStartAndCleanup(t *testing.T) {
	for i := range 4 {
		var worker verify.Fingerprint
		t.Run(fmt.Sprint("parallel", i), func(t *testing.T) {
			t.Parallel()
			l := serverSpec(t)
			la := Start(t, l, launcher.Options{})
			worker = la.Worker()
			if !la.Report.Verified {
				t.Fatalf("not verified: %+v", la.Report.Problems)
			}
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", l.Ports[0].Number))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if _, err := la.Verify(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				// Registered after Start's: runs first, the worker still alive.
				if la.Worker().Check(proc.Default) != verify.Alive {
					t.Errorf("the worker died before the cleanup")
				}
			})
		})
		t.Cleanup(func() {
			if worker.Pid != 0 && worker.Check(proc.Default) == verify.Alive {
				t.Errorf("worker pid %d survived its test's cleanup", worker.Pid)
			}
		})
	}
}

// fakeTB records a Fatalf instead of failing the real test.
type fakeTB struct {
	testing.TB
	fatal    string
	cleanups []func()
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestStartFailsWithExitStatusAndLastLines(t *testing.T) {
	t.Parallel()
	port := FreePort(t)
	l := &schema.Launch{
		Name:    "dies",
		Command: []string{"sh", "-c", "echo starting; echo 'FATAL: MOCK_LLM_KEY missing' >&2; exit 7"},
		Ports:   []schema.Port{{Number: port}},
	}
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(f, l, launcher.Options{})
	}()
	<-done
	t.Log(f.fatal)
	for _, want := range []string{"exit 5", "exit status 7", "FATAL: MOCK_LLM_KEY missing", "starting"} {
		if !strings.Contains(f.fatal, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.fatal)
		}
	}
	if len(f.cleanups) != 0 {
		t.Errorf("a failed start registered %d cleanups", len(f.cleanups))
	}
}

func TestStartFileBadSpec(t *testing.T) {
	path := t.TempDir() + "/bad.hcl"
	os.WriteFile(path, []byte("launch \"x\" {\n  nosuch = 1\n}\n"), 0o644)
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		StartFile(f, path, "", nil, launcher.Options{})
	}()
	<-done
	if !strings.Contains(f.fatal, "bad.hcl:2") {
		t.Errorf("the failure has no file:line: %s", f.fatal)
	}
}
