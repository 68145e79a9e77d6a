package launchertest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/childproof/childproof/internal/freeport"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// StopTimeout is the cleanup's default wait after SIGTERM before it
// SIGKILLs what is left of the tree; Options.StopGrace sets another per
// call (a server that ignores SIGTERM: a second, say).
const StopTimeout = launcher.DefaultStopGrace

// inlineMax bounds the copy of a failed launch's log printed into the
// test log when its output was not streamed there and -artifacts is off.
const inlineMax = 32 << 10

// Start is StartContext with tb.Context(): the start is abandoned when
// the test ends.
func Start(tb testing.TB, l *spec.Launch, opts launcher.Options) *launcher.Launch {
	tb.Helper()
	return StartContext(tb.Context(), tb, l, opts)
}

// StartContext starts l with launcher.Start under ctx and returns the
// verified launch: the worker was found, its environ holds the required
// and overridden variables, it owns the declared ports and answered the
// readiness check (and Options.Ready's).
//
// Each call gets a state dir of its own (StateDir) unless opts sets
// State or StateDir, so calls are independent under t.Parallel() and
// -count=N; declare ports that are free (FreePort). What the tree prints
// is streamed into the test log, each line as "NAME| line" with secrets
// masked, unless opts.Output is set (io.Discard: not streamed). A cleanup
// registered on tb stops the launched tree — SIGTERM to its process
// group, never to the calling process, SIGKILL after opts.StopGrace
// (StopTimeout when zero) — and returns only once the worker is reaped.
//
// When the launch fails, StartContext fails the test (tb.Fatalf) with the
// reason and the last lines the tree printed; when the test fails, its
// whole output is kept where the author can read it: copied into
// tb.ArtifactDir() under `go test -artifacts`, else in the test log
// (streamed, or printed at the end, at most 32 KiB of its end). The
// failure's hint says where.
func StartContext(ctx context.Context, tb testing.TB, l *spec.Launch, opts launcher.Options) *launcher.Launch {
	tb.Helper()
	if l == nil {
		tb.Fatalf("launchertest: no launch (a nil *spec.Launch)")
	}
	if opts.State == nil && opts.StateDir == "" {
		opts.StateDir = StateDir(tb)
	}
	if opts.StopGrace == 0 && l.Stop.Timeout == 0 {
		opts.StopGrace = StopTimeout
	}
	streamed := opts.Output == nil
	if streamed {
		opts.Output = &prefixWriter{w: tb.Output(), prefix: []byte(l.Name + "| ")}
	}
	la, err := launcher.Start(ctx, l, opts)
	if err != nil {
		var where string
		if log := failedLog(err); log != "" {
			where = keepLog(tb, l.Name, log, streamed)
			err = pointTo(err, log, where)
		}
		tb.Fatalf("%s", failure(l.Name, err))
	}
	tb.Cleanup(func() {
		var died bool
		select {
		case <-la.Done():
			died = true
		default:
			died = la.Worker().Check(proc.FS{}) != verify.Alive
		}
		var status launcher.ExitStatus
		if died {
			status = la.Wait() // how it ended, into the round history
		}
		res, _ := la.Stop(context.Background())
		switch {
		case res == nil:
		case res.Killed:
			// Ten seconds (or StopGrace) gone: say why.
			tb.Logf("launchertest: %s: it did not exit on SIGTERM within %s and was SIGKILLed: %s", l.Name, opts.StopGrace, res.Message)
		case died && !res.Signalled:
			// Not stopped by the test, nor by this cleanup: it died.
			msg := fmt.Sprintf("launchertest: %s: the server had exited before the test's cleanup stopped it (worker pid %d, %s)", l.Name, la.Pid(), status)
			if tail := statedir.Tail(la.LogPath(), 5); len(tail) > 0 {
				msg += "; last lines it printed:\n  | " + strings.Join(tail, "\n  | ")
			}
			tb.Logf("%s", msg)
		}
		if tb.Failed() {
			if where := keepLog(tb, l.Name, la.LogPath(), streamed); where != "" {
				tb.Logf("launchertest: %s (worker pid %d): its whole output is in %s", l.Name, la.Pid(), where)
			}
		}
	})
	return la
}

// StateDir makes the state dir Start gives a call whose opts choose
// none: a new directory, mode 0700, that tb's cleanup removes, on a tmpfs
// when the machine has one and $TMPDIR is unset
// (statedir.ScratchParent), else under $TMPDIR as tb.TempDir() is. A
// test that calls launcher.Start itself passes it as Options.StateDir.
func StateDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp(statedir.ScratchParent(), "childproof-test-")
	if err != nil {
		tb.Fatalf("launchertest: state dir: %v", err)
	}
	tb.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			tb.Errorf("launchertest: removing the state dir: %v", err)
		}
	})
	return dir
}

// Up starts several dependent launches for a test, as `childproof up`
// does: in depends_on order (group.Order), each verified before any
// launch that depends on it starts, all in one state dir of the test's
// own (unless opts sets one), each as StartContext starts it (output
// streamed as "NAME| line", failures with their last lines). Each launch
// registers its own cleanup as it starts, so the test's cleanups stop
// them in reverse order: dependents first. A launch that fails fails the
// test; those started before it are stopped by their cleanups. It
// returns the launches by name.
func Up(tb testing.TB, opts launcher.Options, launches ...*spec.Launch) map[string]*launcher.Launch {
	tb.Helper()
	order, err := group.Order(launches)
	if err != nil {
		tb.Fatalf("launchertest: %v", err)
	}
	if opts.State == nil && opts.StateDir == "" {
		opts.StateDir = StateDir(tb)
	}
	out := map[string]*launcher.Launch{}
	for _, l := range order {
		out[l.Name] = StartContext(tb.Context(), tb, l, opts)
	}
	return out
}

// prefixWriter writes each line after a prefix (a Write holds whole
// lines, one or more: Options.Output).
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix []byte
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = p.buf[:0]
	for rest := b; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n') + 1
		if i == 0 {
			i = len(rest)
		}
		p.buf = append(append(p.buf, p.prefix...), rest[:i]...)
		rest = rest[i:]
	}
	if _, err := p.w.Write(p.buf); err != nil {
		return 0, err
	}
	return len(b), nil
}

// failedLog is the log of a failed launch, when it has one.
func failedLog(err error) string {
	var e *launcher.Error
	if !errors.As(err, &e) || e.Report == nil || e.Report.Log == "" {
		return ""
	}
	if _, err := os.Stat(e.Report.Log); err != nil {
		return ""
	}
	return e.Report.Log
}

// keepLog keeps the whole log at path for the author of a failed test and
// says where it is: a copy in tb.ArtifactDir() under -artifacts; else the
// test log, where it was streamed or where it is printed now (its last
// inlineMax bytes).
func keepLog(tb testing.TB, name, path string, streamed bool) string {
	tb.Helper()
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		dst := filepath.Join(tb.ArtifactDir(), name+".log")
		if err := copyFile(dst, path); err == nil {
			return dst
		}
	}
	if streamed {
		return fmt.Sprintf("the test log (its lines start %q)", name+"| ")
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return ""
	}
	cut := ""
	if len(data) > inlineMax {
		data = data[len(data)-inlineMax:]
		if i := strings.IndexByte(string(data), '\n'); i >= 0 {
			data = data[i+1:]
		}
		cut = fmt.Sprintf(" (its last %d bytes)", len(data))
	}
	tb.Logf("launchertest: %s printed%s:\n  | %s", name, cut, strings.ReplaceAll(strings.TrimRight(string(data), "\n"), "\n", "\n  | "))
	return "the test log, printed in full above" + cut
}

func copyFile(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o600)
}

// pointTo makes err's hint name where the log is kept instead of its path
// in the state dir, which StateDir's cleanup removes.
func pointTo(err error, log, where string) error {
	var e *launcher.Error
	if where == "" || !errors.As(err, &e) {
		return err
	}
	e.Hint = strings.ReplaceAll(e.Hint, log, where)
	return err
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on right
// now, never the same port twice in one test binary, and none that
// another test binary running on the machine holds from FreePort (each
// port handed out is reserved, by a descriptor of the test binary's,
// until tb's cleanups run: the launch tb started on it is stopped by
// then, and a suite of many tests does not pile up descriptors, which
// each fork of a launch scans). The port is taken
// from below the kernel's ephemeral range (net.ipv4.ip_local_port_range,
// 32768–60999 by default): the kernel never hands those to a connect() or
// to a listen on port 0, so no client socket of a concurrent test (a
// readiness probe, an HTTP request) can take it before the launch binds it.
func FreePort(tb testing.TB) int {
	tb.Helper()
	port, err := freeport.FreePort()
	if err != nil {
		tb.Fatalf("launchertest: %v", err)
	}
	tb.Cleanup(func() { freeport.Release(port) })
	return port
}

// FreePortIn is FreePort within lo–hi (inclusive): for a server, a
// firewall or a CI runner that accepts only some ports. A range that
// reaches into the ephemeral range can be taken by a client socket before
// the launch binds; a range with no free port left fails the test.
func FreePortIn(tb testing.TB, lo, hi int) int {
	tb.Helper()
	if lo < 1 || hi > 65535 || lo > hi {
		tb.Fatalf("launchertest: FreePortIn(%d, %d): not a port range (1 <= lo <= hi <= 65535)", lo, hi)
	}
	port, ok := freeport.FreePortIn(lo, hi)
	if !ok {
		tb.Fatalf("launchertest: FreePortIn(%d, %d): no port of the range is free and not handed out already", lo, hi)
	}
	tb.Cleanup(func() { freeport.Release(port) })
	return port
}

// failure describes a failed launch for a test log.
func failure(name string, err error) string {
	var e *launcher.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("launchertest: %s: %v", name, err)
	}
	var b strings.Builder
	// The kind, never the CLI's exit code: the report's first problem
	// kind (exited, not-ready, …), else the Outcome a Go caller switches on.
	kind := e.Outcome.String()
	if e.Report != nil && len(e.Report.Problems) > 0 {
		kind = string(e.Report.Problems[0].Kind)
	}
	fmt.Fprintf(&b, "launchertest: %s: %s: %s", name, kind, e.Error())
	if e.Report != nil {
		for _, p := range e.Report.Problems {
			if !strings.Contains(e.Error(), p.Message) {
				fmt.Fprintf(&b, "\n  problem: %s: %s", p.Kind, p.Message)
			}
		}
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "\n  hint: %s", e.Hint)
	}
	return b.String()
}
