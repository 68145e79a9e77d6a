package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/lintreport"
	"github.com/childproof/childproof/proc"
	"github.com/spf13/cobra"
)

func init() { register("ps", newPsCmd) }

func newPsCmd(a *app) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use: "ps [--all]",
		Long: `ps lists the launches recorded in the state dir and checks each against the kernel:
alive (the recorded worker's fingerprint — pid, start time, uid, exe, pidfs inode —
still matches), gone, pid reused (another process has the pid now), unverified (a tree
that runs but was never verified: a launch under way, or one whose childproof was
killed mid-launch) or unknown (an unreadable record), and who holds
each recorded port now: the worker, nobody, or another process (pid, uid, cmdline, age).
Launches stopped by childproof are shown with --all.`,
		Example: `  childproof ps
  childproof ps --all --format json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			// ps is short and allocates a few MB for a thousand records:
			// no collection until it has used 64 MiB (one cycle costs
			// more than the census at this size); as it was afterwards.
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20))
			st, err := a.openState()
			if err != nil {
				return err
			}
			if err := st.KeyErr(); err != nil {
				fmt.Fprintf(a.stderr, "childproof: warning: %v\n", err)
			}
			es, err := launcher.Census(proc.Default, st, all)
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			for _, e := range es {
				switch {
				case e.Status == launcher.StatusUntrusted:
					fmt.Fprintf(a.stderr, "childproof: warning: %s\n", e.Error)
				case e.Error != "":
					fmt.Fprintf(a.stderr, "childproof: warning: the record of %q is unreadable: %s\n", e.Name, e.Error)
				}
			}
			if a.format == "json" {
				if es == nil {
					es = []launcher.CensusEntry{}
				}
				return lintreport.JSON(a.stdout, map[string]any{"launches": es})
			}
			if len(es) == 0 {
				fmt.Fprintln(a.stdout, launcher.EmptyCensusText(proc.Default, st, all))
				return nil
			}
			// Launches of one spec file together (up starts several).
			sort.SliceStable(es, func(i, j int) bool { return es[i].SpecPath < es[j].SpecPath })
			// One write for the table, not one per launch.
			w := bufio.NewWriter(a.painted(a.stdout, reportPaint))
			defer w.Flush()
			now, euid := time.Now(), os.Geteuid()
			groups := 0
			for i, e := range es {
				if i == 0 || e.SpecPath != es[i-1].SpecPath {
					groups++
				}
			}
			fmt.Fprintf(w, "%-20s %-11s %-8s %-16s %-10s %-5s %s\n", "NAME", "STATUS", "PID", "COMM", "AGE", "ROUND", "PORTS")
			for i, e := range es {
				if groups > 1 && (i == 0 || e.SpecPath != es[i-1].SpecPath) {
					spec := e.SpecPath
					if spec == "" {
						spec = "(no spec file)"
					}
					fmt.Fprintf(w, "# %s\n", displayPath(spec, false))
				}
				fmt.Fprintf(w, "%-20s %-11s %-8s %-16s %-10s %-5s %s\n", e.Name, e.Status, e.PidText(), e.Worker.Comm, e.AgeText(now), e.RoundText(), e.PortsText(euid))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "also list launches childproof stopped")
	return c
}
