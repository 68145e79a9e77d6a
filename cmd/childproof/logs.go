package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/logtail"
	"github.com/childproof/childproof/internal/proc"
	"github.com/childproof/childproof/launcher"
	"github.com/spf13/cobra"
)

func init() { register(newLogsCmd) }

func newLogsCmd(a *app) *cobra.Command {
	var lines int
	var follow bool
	var vars []string
	c := &cobra.Command{
		Use:   "logs NAME|SPEC[:NAME] [-n N] [-f]",
		Short: "print or follow a launch's output from its log in the state dir",
		Long: `logs prints the output of a recorded launch's tree (its stdout and stderr, as the
worker wrote them) from the log in the state dir: all of it, or the last N lines
with -n. With -f it then follows the log, printing lines as they are written, also
across a new launch of the same name (the old log is kept as NAME.log.1), until
interrupted or, when the launch is no longer running, once everything is printed.

Secret values the worker printed are masked as <NAME> (values under 6 characters
are too common to mask in text). The raw log file keeps what the worker printed,
mode 0600.`,
		Example: `  childproof logs mock-llm
  childproof logs -n 50 -f mock-llm
  childproof logs examples/01-login-shell/childproof.hcl:login-shell-fixed`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: a.completeLaunchName,
		RunE: func(c *cobra.Command, args []string) error {
			if err := a.checkFormat("text"); err != nil {
				return err
			}
			name, err := specOrDefault(args)
			if err != nil {
				return err
			}
			if isSpecArg(name) {
				_, l, err := a.loadLaunch(c.Context(), name, vars)
				if err != nil {
					return err
				}
				name = l.Name
			}
			return a.logs(c.Context(), name, lines, follow)
		},
	}
	addVarFlag(c, &vars)
	c.Flags().IntVarP(&lines, "lines", "n", -1, "print only the last `N` lines (default: all)")
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing lines as they are written")
	return c
}

// textMasker hides secret values in a line of worker output.
type textMasker interface{ Text(string) string }

func (a *app) logs(ctx context.Context, name string, n int, follow bool) error {
	st, err := a.openState()
	if err != nil {
		return err
	}
	path := st.LogPath(name)
	t, err := logtail.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &exitError{code: exitUsage, err: fmt.Errorf("no log of a launch %q in %s", name, st.Dir),
			hint: "'childproof ps --all' lists the recorded launches"}
	}
	if err != nil {
		return exitf(exitUsage, "log of %q: %v", name, err)
	}
	defer t.Close()
	rec, _ := st.Load(name)
	m := a.logMasker(st, rec)
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
			if running(st, name) {
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

// running reports whether the recorded launch of name still runs: its
// worker (for a provisional record, its root) is alive.
func running(st *launcher.State, name string) bool {
	rec, err := st.Load(name)
	if err != nil || rec.Stopped != nil {
		return false
	}
	return rec.Worker.Check(proc.Default) == launcher.Alive
}

// digestMasker masks the values of the caller's environment that the
// recorded launch set on its worker: any value here whose digest under a
// protected name is the recorded one (env("K") puts the caller's K under
// another name). It stands in until the shared redaction set (secret
// names, env files, --set-secret) is available to commands that launch
// nothing.
type digestMasker struct{ rep *strings.Replacer }

func (a *app) logMasker(st *launcher.State, rec *launcher.Record) textMasker {
	m := &digestMasker{}
	if rec == nil {
		return m
	}
	var values []string
	for _, kv := range os.Environ() {
		_, v, _ := strings.Cut(kv, "=")
		if len(v) < 6 {
			continue
		}
		for name, d := range rec.Env {
			if d != "" && st.Digest(name, v) == d {
				values = append(values, v, "<"+name+">")
				break
			}
		}
	}
	// Longest first, so that a value inside another is not masked first.
	pairs := make([][2]string, 0, len(values)/2)
	for i := 0; i < len(values); i += 2 {
		pairs = append(pairs, [2]string{values[i], values[i+1]})
	}
	slices.SortFunc(pairs, func(x, y [2]string) int { return len(y[0]) - len(x[0]) })
	var flat []string
	for _, p := range pairs {
		flat = append(flat, p[0], p[1])
	}
	m.rep = strings.NewReplacer(flat...)
	return m
}

func (m *digestMasker) Text(s string) string {
	if m.rep == nil {
		return s
	}
	return m.rep.Replace(s)
}
