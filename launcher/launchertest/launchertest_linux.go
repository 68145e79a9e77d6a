package launchertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
)

// StopTimeout bounds how long the cleanup waits after SIGTERM before it
// SIGKILLs what is left of the tree.
const StopTimeout = 10 * time.Second

// Start starts l with launcher.Start and returns the verified launch: the
// worker was found, its environ holds the required and overridden
// variables, it owns the declared ports and answered the readiness check.
//
// Each call gets a state dir of its own (tb.TempDir()) unless opts sets
// State or StateDir, so calls are independent under t.Parallel() and
// -count=N; declare ports that are free (FreePort). A cleanup registered
// on tb stops the launched tree — SIGTERM to its process group, never to
// the calling process — and returns only once the worker is reaped; when
// the test failed, the cleanup logs the tree's last lines.
//
// When the launch fails, Start fails the test (tb.Fatalf) with the reason:
// for a worker that exited before it was ready, its exit status or signal
// and the last lines it printed; otherwise the verification problems.
func Start(tb testing.TB, l *schema.Launch, opts launcher.Options) *launcher.Launch {
	tb.Helper()
	if opts.State == nil && opts.StateDir == "" {
		opts.StateDir = tb.TempDir()
	}
	la, err := launcher.Start(context.Background(), l, opts)
	if err != nil {
		tb.Fatalf("%s", failure(l.Name, err))
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), StopTimeout)
		defer cancel()
		la.Stop(ctx)
		if tb.Failed() {
			if lines := tail(la.LogPath(), 20); len(lines) > 0 {
				tb.Logf("launchertest: %s (worker pid %d) printed, last lines:\n  | %s", l.Name, la.Pid(), strings.Join(lines, "\n  | "))
			}
		}
	})
	return la
}

// StartFile loads the launch called name (empty: the only one) from the
// HCL spec at path, with vars setting its variables, and starts it as
// Start does. A spec that does not load fails the test with its
// diagnostics.
func StartFile(tb testing.TB, path, name string, vars map[string]string, opts launcher.Options) *launcher.Launch {
	tb.Helper()
	f, _, diags := schema.Load(path, schema.LoadOptions{Vars: vars})
	if diags.HasErrors() {
		tb.Fatalf("launchertest: %s: %s", path, diags.Error())
	}
	l, err := f.Launch(name)
	if err != nil {
		tb.Fatalf("launchertest: %v", err)
	}
	if opts.SpecHash == "" {
		opts.SpecHash = f.Hash
	}
	return Start(tb, l, opts)
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on right
// now, and never the same port twice in one test binary. The port is taken
// from below the kernel's ephemeral range (net.ipv4.ip_local_port_range,
// 32768–60999 by default): the kernel never hands those to a connect() or
// to a listen on port 0, so no client socket of a concurrent test (a
// readiness probe, an HTTP request) can take it before the launch binds it.
func FreePort(tb testing.TB) int {
	tb.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	if hi := ephemeralLow() - 1; hi > minPort {
		for range 1000 {
			port := minPort + rand.IntN(hi-minPort+1)
			if ports[port] {
				continue
			}
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				continue
			}
			ln.Close()
			ports[port] = true
			return port
		}
	}
	for range 1000 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("launchertest: free port: %v", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !ports[port] {
			ports[port] = true
			return port
		}
	}
	tb.Fatalf("launchertest: free port: every port the kernel offered was handed out already")
	return 0
}

// minPort is the lowest port FreePort picks (above the well-known and most
// registered service ports).
const minPort = 20000

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return n
}

var (
	portsMu sync.Mutex
	ports   = map[int]bool{}
)

// failure describes a failed launch for a test log.
func failure(name string, err error) string {
	var e *launcher.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("launchertest: %s: %v", name, err)
	}
	var b strings.Builder
	if e.Report != nil {
		fmt.Fprintf(&b, "launchertest: %s: exit %d (%s): %s", name, e.Report.ExitCode, e.Kind, e.Error())
	} else {
		fmt.Fprintf(&b, "launchertest: %s: %s (%s): %s", name, e.Outcome, e.Kind, e.Error())
	}
	if e.Report != nil {
		for _, p := range e.Report.Problems {
			if !strings.Contains(e.Error(), p.Message) {
				fmt.Fprintf(&b, "\n  problem: %s: %s", p.Kind, p.Message)
			}
		}
		if e.Report.Log != "" && !strings.Contains(e.Hint, e.Report.Log) {
			fmt.Fprintf(&b, "\n  log: %s", e.Report.Log)
		}
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "\n  hint: %s", e.Hint)
	}
	return b.String()
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
