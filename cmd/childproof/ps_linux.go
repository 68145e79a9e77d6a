package main

import (
	"bufio"
	"fmt"
	"github.com/childproof/childproof/schema"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/proc"
	"github.com/spf13/cobra"
)

func init() { register("ps", newPsCmd) }

func newPsCmd(a *app) *cobra.Command {
	var all bool
	var hosts []string
	var remote string
	c := &cobra.Command{
		Use: "ps [--all]",
		Long: `ps lists the launches recorded in the state dir and checks each against the kernel:
alive (the recorded worker's fingerprint — pid, start time, uid, exe, pidfs inode —
still matches), gone, pid reused (another process has the pid now), unverified (a tree
that runs but was never verified: a launch under way, or one whose childproof was
killed mid-launch) or unknown (an unreadable record), and who holds
each recorded port now: the worker, nobody, or another process (pid, uid, cmdline, age).
Launches stopped by childproof are shown with --all.

--state-dir may be given several times, or as a glob (quoted, for childproof to expand):
one census of every state dir it names, each launch with its state dir ("state_dir"
in JSON) — the per-node, per-task state dirs of a SLURM job on a shared file system,
or the state dirs of several projects.

--host HOST (repeatable) takes the census on each host over ssh (childproof ps --format
json there, with the same --all and --state-dir values; $CHILDPROOF_SSH_COMMAND, run by
sh, is the ssh command, default "ssh -o BatchMode=yes") and lists every host's launches
in one table under "# HOST: …" (JSON: "host"): the nodes of a job whose state dirs are
node-local. A host that cannot be reached is said on stderr; ps then exits 2.`,
		Example: `  childproof ps
  childproof ps --all --format json
  childproof ps --state-dir '/scratch/childproof/slurm-4242.0.*'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			// ps is short and allocates a few MB for a thousand records:
			// no collection until it has used 64 MiB (one cycle costs
			// more than the census at this size); as it was afterwards.
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20))
			if len(hosts) > 0 {
				return a.psHosts(c.Context(), hosts, remote, all)
			}
			if len(a.stateDirs) > 1 || len(a.stateDirs) == 1 && strings.ContainsAny(a.stateDirs[0], "*?[") {
				return a.psSeveral(all)
			}
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
				return present.JSON(a.stdout, present.NewCensusOutput(es))
			}
			if len(es) == 0 {
				fmt.Fprintln(a.stdout, present.EmptyCensusText(proc.Default, st, all))
				return nil
			}
			// One write for the table, not one per launch.
			w := bufio.NewWriter(a.painted(a.stdout, reportPaint))
			defer w.Flush()
			present.WriteCensus(w, es, present.CensusText{Dir: workDir(), Euid: os.Geteuid(), Now: time.Now()})
			return nil
		},
	}
	c.Flags().BoolVarP(&all, "all", "a", false, "also list launches childproof stopped")
	c.Flags().StringArrayVar(&hosts, "host", nil, "census of HOST too, over ssh (repeatable; $CHILDPROOF_SSH_COMMAND is the ssh command, default ssh)")
	c.Flags().StringVar(&remote, "childproof", "childproof", "the childproof program on the hosts --host names")
	return c
}

// psSeveral is ps over several state dirs: one census of each, in one
// table. A state dir that cannot be opened is said on stderr and makes ps
// exit 2 after the others are listed.
func (a *app) psSeveral(all bool) error {
	dirs, err := a.psStateDirs()
	if err != nil {
		return err
	}
	var es []launcher.CensusEntry
	var failed []string
	openingState()
	for _, dir := range dirs {
		st, err := launcher.OpenState(dir)
		if err == nil {
			st.ReadSpec = schema.ReadLaunch
			var got []launcher.CensusEntry
			if got, err = launcher.Census(proc.Default, st, all); err == nil {
				for i := range got {
					got[i].StateDir = dir
				}
				es = append(es, got...)
				continue
			}
		}
		fmt.Fprintf(a.stderr, "childproof: error: state dir %s: %v\n", dir, err)
		failed = append(failed, dir)
	}
	if a.format == "json" {
		if err := present.JSON(a.stdout, present.NewCensusOutput(es)); err != nil {
			return err
		}
	} else if len(es) == 0 {
		fmt.Fprintf(a.stdout, "no launches recorded in the %d state dirs\n", len(dirs))
	} else {
		w := bufio.NewWriter(a.painted(a.stdout, reportPaint))
		present.WriteCensus(w, es, present.CensusText{Dir: workDir(), Euid: os.Geteuid(), Now: time.Now()})
		w.Flush()
	}
	if len(failed) > 0 {
		return exitf(exitUsage, "%d of %d state dirs could not be read: %s", len(failed), len(dirs), strings.Join(failed, ", "))
	}
	return nil
}
