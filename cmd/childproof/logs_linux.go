package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/childproof/childproof/internal/logtail"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/schema"
	"github.com/spf13/cobra"
)

func init() { register("logs", newLogsCmd) }

func newLogsCmd(a *app) *cobra.Command {
	var lines int
	var follow bool
	var vars []string
	c := &cobra.Command{
		Use: "logs NAME|SPEC[:NAME] [-n N] [-f]",
		Long: `logs prints the output of a recorded launch's tree (its stdout and stderr, as the
worker wrote them) from the log in the state dir: all of it, or the last N lines
with -n. With -f it then follows the log, printing lines as they are written, also
across a new launch of the same name (the old log is kept as NAME.log.1), until
interrupted or, when the launch is no longer running, once everything is printed.

Secret values the worker printed are masked as <NAME> (values under 6 characters
are too common to mask in text): childproof masks the tree's output before it
writes the log (the log file never holds a secret), so logs needs none of the
launch's secrets in the caller's environment.`,
		Example: `  childproof logs mock-llm
  childproof logs -n 50 -f mock-llm
  childproof logs examples/01-login-shell/childproof.hcl:login-shell-fixed`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: a.completeLaunchName,
		RunE: func(c *cobra.Command, args []string) error {
			a.launchesNothing = true
			if err := a.checkFormat("text"); err != nil {
				return err
			}
			name, err := a.launchNameArg(c.Context(), args, vars)
			if err != nil {
				return err
			}
			return a.logs(c.Context(), name, lines, follow)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().IntVarP(&lines, "lines", "n", -1, "print only the last `N` lines (default: all)")
	// The default, -1, is "all": help says so once, not "(default -1)" too.
	c.Flags().Lookup("lines").DefValue = "0"
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing lines as they are written")
	return c
}

func (a *app) logs(ctx context.Context, name string, n int, follow bool) error {
	st, err := a.openState()
	if err != nil {
		return err
	}
	path := st.LogPath(name)
	t, err := logtail.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &exitError{code: exitNotRecorded, err: fmt.Errorf("no log of a launch %q in %s", name, st.Dir),
			hint: "'childproof ps --all' lists the recorded launches"}
	}
	if err != nil {
		return exitf(exitUsage, "log of %q: %v", name, err)
	}
	defer t.Close()
	// The log holds the output masked already (at the source: the tree's
	// pipe is read and masked before the log is written). This is a second
	// pass for a log an older childproof wrote, with what is known without
	// the caller's environment (contract §6: logs never needs it): the
	// recorded spec's secrets as it reads here, the record's digests and
	// occurrences, and the log mask written as the last launch of name
	// started (a launch that failed and left no record).
	rec, _ := st.Load(name)
	m := st.Secrets(launcher.Known{Spec: recordedSpec(rec), Record: rec, Log: name})
	w := bufio.NewWriter(a.stdout)
	emit := func(line string) {
		w.WriteString(m.Text(line))
		w.WriteByte('\n')
	}
	if err := t.Last(n, emit); err != nil {
		return exitf(exitUsage, "log of %q: %v", name, err)
	}
	if err := w.Flush(); err != nil || !follow {
		return nil
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// Follow ends once the launch no longer runs (checked every
		// second, twice in a row: a relaunch replaces the record).
		idle := 0
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-fctx.Done():
				return
			case <-tick.C:
			}
			if len(group.NotRunning(st, name)) == 0 {
				idle = 0
			} else if idle++; idle >= 2 {
				cancel()
				return
			}
		}
	}()
	err = t.Follow(fctx, 100*time.Millisecond, func(line string) {
		emit(line)
		w.Flush()
	})
	w.Flush()
	if err != nil {
		return exitf(exitUsage, "log of %q: %v", name, err)
	}
	return nil
}

// recordedSpec is the launch of rec as its spec file reads here (nil: no
// record, or the file no longer loads or has no such launch).
func recordedSpec(rec *launcher.Record) *schema.Launch {
	if rec == nil || rec.SpecPath == "" {
		return nil
	}
	f, _, diags := schema.Load(rec.SpecPath, schema.LoadOptions{LaunchesNothing: true})
	if diags.HasErrors() || f == nil {
		return nil
	}
	l, _ := f.Launch(rec.Name)
	return l
}
