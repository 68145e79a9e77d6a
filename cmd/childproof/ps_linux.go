package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
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
				return lintreport.JSON(a.stdout, launcher.NewCensusOutput(es))
			}
			if len(es) == 0 {
				fmt.Fprintln(a.stdout, launcher.EmptyCensusText(proc.Default, st, all))
				return nil
			}
			// One write for the table, not one per launch.
			w := bufio.NewWriter(a.painted(a.stdout, reportPaint))
			defer w.Flush()
			launcher.WriteCensus(w, es, launcher.CensusText{Dir: workDir(), Euid: os.Geteuid(), Now: time.Now()})
			return nil
		},
	}
	c.Flags().BoolVarP(&all, "all", "a", false, "also list launches childproof stopped")
	return c
}
