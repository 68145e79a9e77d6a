//go:build !linux

package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// linuxOnly are the commands that start, read or signal processes: they
// read /proc and use pidfds and sock_diag, which only Linux has. Elsewhere
// (a reviewer's macOS laptop running lint and check) they exist, so that
// help lists them, and exit 2 saying so. A new launching command adds its
// name here.
var linuxOnly = []struct{ use, short string }{
	{"run", "launch without rc files, verify on the worker, then supervise or detach"},
	{"relaunch", "relaunch a recorded launch with exactly this delta, and prove it on the worker"},
	{"verify", "verify an already running tree on its worker, read-only"},
	{"explain", "show a variable on every process from the launch root down to the worker"},
	{"ps", "census of recorded launches: alive, gone, pid reused, port holder"},
	{"stop", "stop a recorded launch: SIGTERM its group, wait, then SIGKILL"},
	{"up", "start the launches of a spec in depends_on order, each verified before its dependents"},
	{"down", "stop the launches of a spec in reverse depends_on order"},
	{"history", "the launch's crash-fix rounds: delta, outcome, how each worker ended"},
}

func init() {
	for _, c := range linuxOnly {
		register(func(a *app) *cobra.Command {
			return &cobra.Command{
				Use:                c.use,
				Short:              c.short + " (Linux only)",
				DisableFlagParsing: true,
				RunE: func(*cobra.Command, []string) error {
					return &exitError{code: exitUsage,
						err:  fmt.Errorf("%s needs Linux (it reads /proc and uses pidfds); this is %s", c.use, runtime.GOOS),
						hint: "lint and check work here; run the launch on a Linux machine"}
				},
			}
		})
	}
}
