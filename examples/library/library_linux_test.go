package library_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/childproof/childproof/launcher/launchertest/specfile"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

// mockLLM is the example server, built once for the whole test binary.
var mockLLM string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "childproof-library-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mockLLM = filepath.Join(dir, "mock-llm")
	if prebuilt := os.Getenv("CHILDPROOF_MOCK_LLM"); prebuilt != "" {
		mockLLM = prebuilt // make bench's bin/mock-llm
	} else {
		build := exec.Command("go", "build", "-o", mockLLM, "../mock-llm")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build examples/mock-llm: %v\n%s", err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	flag.Parse()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "^$" {
		// Benchmarks only (make bench): no shared server supervised in
		// the background while they measure this process's CPU.
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	// One mock-llm for the whole package (TestSharedServer uses it),
	// started here, where there is no testing.TB; ready once it has said
	// it listens (a log wait) and answered /healthz.
	port, err := launchertest.Port()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	la, stop, err := launchertest.Shared(context.Background(), mockSpec(port, "shared-key"),
		launcher.Options{Ready: launcher.Readiness{Log: regexp.MustCompile(`^mock-llm: listening on `)}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "shared mock-llm:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	shared = la
	code := m.Run()
	stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

// shared is the package's one mock-llm, started by TestMain.
var shared *launcher.Launch

// TestSharedServer: tests of a package use the one server TestMain
// started (launchertest.Shared), in parallel, without starting their own.
func TestSharedServer(t *testing.T) {
	for i := range 3 {
		t.Run(fmt.Sprint("user", i), func(t *testing.T) {
			t.Parallel()
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", shared.Spec.Ports[0].Number))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("healthz: %s", resp.Status)
			}
		})
	}
	if !shared.Report.Verified {
		t.Error("the shared server is not verified")
	}
}

// TestLogWaits: Ready.Log waits for a line of the server's output, and
// LogCount for the N-th matching line (here the server's first line and
// the wrapper's two before it).
func TestLogWaits(t *testing.T) {
	t.Parallel()
	port := launchertest.FreePort(t)
	l := mockSpec(port, "log-key")
	l.Command = append([]string{"sh", "-c", `echo "mock-llm: warming"; echo "mock-llm: warming"; exec "$@"`, "sh"}, l.Command...)
	la := launchertest.Start(t, l, launcher.Options{Ready: launcher.Readiness{
		Log: regexp.MustCompile(`^mock-llm: `), LogCount: 3,
	}})
	data, err := os.ReadFile(la.LogPath())
	if err != nil || !strings.Contains(string(data), "listening on") {
		t.Fatalf("ready before the third line (%v):\n%s", err, data)
	}
}

// TestStreamsApart: the server's stdout and stderr apart. A wrapper says
// "warming" on stdout, then mock-llm says "listening on" on stderr; the
// test waits on stderr (launcher.Lines in a Ready.Func) and finds each
// line in its own stream only.
func TestStreamsApart(t *testing.T) {
	t.Parallel()
	port := launchertest.FreePort(t)
	l := mockSpec(port, "streams-key")
	l.Command = append([]string{"sh", "-c", `echo "wrapper: warming"; exec "$@"`, "sh"}, l.Command...)
	var stdout, stderr launcher.Lines
	launchertest.Start(t, l, launcher.Options{Stdout: &stdout, Stderr: &stderr,
		Ready: launcher.Readiness{Func: func(ctx context.Context) error {
			_, err := stderr.Wait(ctx, regexp.MustCompile(`^mock-llm: listening on `), 1)
			return err
		}}})
	out, errs := strings.Join(stdout.Lines(), "\n"), strings.Join(stderr.Lines(), "\n")
	if !strings.Contains(out, "wrapper: warming") || strings.Contains(out, "listening on") {
		t.Errorf("stdout:\n%s", out)
	}
	if !strings.Contains(errs, "mock-llm: listening on") || strings.Contains(errs, "warming") {
		t.Errorf("stderr:\n%s", errs)
	}
}

// mockSpec is a launch spec built in Go, without HCL: mock-llm on port,
// with its key, proven on the worker and ready when /healthz answers.
func mockSpec(port int, key string) *schema.Launch {
	return &schema.Launch{
		Name:    "mock-llm",
		Command: []string{mockLLM, "--addr", fmt.Sprintf("127.0.0.1:%d", port)},
		Env:     map[string]string{"MOCK_LLM_KEY": key},
		Require: []string{"MOCK_LLM_KEY"},
		Worker:  schema.Worker{Comm: "mock-llm"},
		Ports:   []schema.Port{{Name: "http", Number: port}},
		Ready:   schema.Ready{HTTP: "/healthz", Timeout: 10 * time.Second},
	}
}

// freePort is launchertest.FreePort's picker for Example, which has no
// testing.TB (a test writes launchertest.FreePort(t), as TestMockLLM does):
// a port below the ephemeral range, never handed out twice.
func freePort() int {
	port, err := testsupport.FreePort()
	if err != nil {
		panic(err)
	}
	return port
}

// Start mock-llm through the library, check it, stop it.
func Example() {
	ctx := context.Background()
	stateDir, _ := os.MkdirTemp("", "childproof-example-")
	defer os.RemoveAll(stateDir)
	port := freePort()

	la, err := launcher.Start(ctx, mockSpec(port, "example-key"), launcher.Options{StateDir: stateDir})
	if err != nil {
		// An *launcher.Error: Code is the CLI's exit code, Report the evidence.
		fmt.Println("launch failed:", err)
		return
	}
	defer la.Stop(ctx) // a no-op once stopped

	fmt.Println("verified on the worker:", la.Report.Verified)
	for _, e := range la.Report.Env {
		fmt.Printf("  %s present=%t matches=%t\n", e.Name, e.Present, e.Matches != nil && *e.Matches)
	}
	fmt.Println("  port owned by the worker:", la.Report.Port.Owned && la.Report.Port.OwnerPid == la.Pid())

	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/v1/complete", port), "application/json", strings.NewReader("{}"))
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("complete:", resp.StatusCode, strings.TrimSpace(string(body)))

	// Stop signals the launched process group (never this process) and
	// returns once the worker is reaped.
	la.Stop(ctx)
	select {
	case <-la.Done():
		fmt.Println("stopped, exit code", la.ExitCode())
	default:
		fmt.Println("still running")
	}
	// Output:
	// verified on the worker: true
	//   MOCK_LLM_KEY present=true matches=true
	//   port owned by the worker: true
	// complete: 200 {"model":"mock","text":"hello from mock-llm"}
	// stopped, exit code 0
}

// TestMockLLM is what a test suite writes with launchertest: one call,
// cleanup included, safe under t.Parallel and -count=N.
func TestMockLLM(t *testing.T) {
	t.Parallel()
	port := launchertest.FreePort(t)
	la := launchertest.Start(t, mockSpec(port, "test-key"), launcher.Options{})

	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", port))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %s", resp.Status)
	}
	// Re-verify at any time: the worker's own environ, fds and socket table.
	if _, err := la.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestMockLLMFromSpec starts the server from an HCL spec file.
func TestMockLLMFromSpec(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "childproof.hcl")
	err := os.WriteFile(spec, []byte(`
variable "port" {
  default = 18081
}
launch "mock-llm" {
  command = ["`+mockLLM+`", "--addr", "127.0.0.1:${var.port}"]
  env = {
    MOCK_LLM_KEY = "spec-key"
  }
  require = ["MOCK_LLM_KEY"]
  worker {
    comm = "mock-llm"
  }
  port "http" {
    number = var.port
  }
  ready {
    http = "/healthz"
  }
}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	port := launchertest.FreePort(t)
	la := specfile.Start(t, spec, "mock-llm", map[string]string{"port": fmt.Sprint(port)}, launcher.Options{})
	if got := la.Report.Port.Number; got != port {
		t.Errorf("port %d, want %d", got, port)
	}
}

// TestMockLLMWithoutKey: a worker that dies before it is ready is exit 5
// at once, with its exit status and the last lines it printed.
func TestMockLLMWithoutKey(t *testing.T) {
	t.Parallel()
	port := launchertest.FreePort(t)
	l := mockSpec(port, "")
	l.Env = nil
	l.Inherit = []string{} // nothing from the caller: no key
	// Not required here: a required name the caller lacks is refused
	// before anything starts; this test wants the server's own refusal.
	l.Require = nil
	start := time.Now()
	_, err := launcher.Start(context.Background(), l, launcher.Options{StateDir: t.TempDir()})
	var e *launcher.Error
	if !errors.As(err, &e) || e.Outcome != outcome.Exited {
		t.Fatalf("got %v, want exit 5", err)
	}
	for _, want := range []string{"exit status 1", "LLM_PROVIDER_NOT_CONFIGURED: MOCK_LLM_KEY missing"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, e)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s: an early exit is reported at once, not after a time-out", d)
	}
}

// TestExample runs Example on every -count iteration (go test runs
// examples once) and checks its output. It is not parallel: it owns
// os.Stdout while it runs.
func TestExample(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	func() {
		defer func() { os.Stdout = stdout }()
		Example()
	}()
	w.Close()
	got := string(<-done)
	want := `verified on the worker: true
  MOCK_LLM_KEY present=true matches=true
  port owned by the worker: true
complete: 200 {"model":"mock","text":"hello from mock-llm"}
stopped, exit code 0
`
	if got != want {
		t.Errorf("Example printed:\n%s\nwant:\n%s", got, want)
	}
}
