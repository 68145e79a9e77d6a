// Package enginetest runs what export writes on the engines themselves, on
// this machine: a single-node SLURM cluster (Debian's slurm-wlm and munge:
// munged, slurmctld and slurmd in the foreground, spool, state and ports
// of their own) and a systemd 252 booted under systemd-nspawn (Debian's
// systemd-container) over a non-recursive bind mount of /. The tests
// submit or start the exported artifacts of the examples and of
// purpose-made specs and judge the outcome from the engine's own view
// (scontrol's job record and the job's output; systemctl show and the
// journal), then tear down every process they started, by pid.
//
// The SLURM tests run first, one at a time: each ends by finding and
// killing whatever is left below the test process (what slurmd
// daemonized), which would take another test's daemons too. TestSystemd
// and TestPsOverSSH then run side by side (t.Parallel): neither looks
// below the test process, and their namespaces are their own.
//
// They need Linux and root; each skips, naming the package or the reason,
// where the machine cannot (.ci/run installs the packages).
package enginetest
