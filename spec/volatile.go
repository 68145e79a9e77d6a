package spec

// BuiltinVolatile are the names (inherit-style patterns) that a launched
// tree's own launcher sets anew on every launch, whatever childproof
// passed: relaunch leaves them out of its delta check (they differ between
// any two launches) and shows them as volatile. A spec adds its own with
// volatile = [...]. docs/launcher.md cites where each comes from.
var BuiltinVolatile = []string{
	// torchrun / torchelastic (pytorch.org/docs/stable/elastic/run.html,
	// "Environment Variables"): the run id, the per-launch error file
	// under a fresh temporary directory, the restart count, and the
	// rendezvous port a standalone or port-0 rendezvous picks.
	"TORCHELASTIC_*", "MASTER_PORT",
	// SLURM (slurm.schedmd.com/srun.html, "OUTPUT ENVIRONMENT VARIABLES"):
	// the job and step ids and what srun opens for each step.
	"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_STEP_ID", "SLURM_STEPID", "SLURM_TASK_PID",
	"SLURM_JOB_START_TIME", "SLURM_JOB_END_TIME", "SLURM_SRUN_COMM_PORT", "SLURM_STEP_LAUNCHER_PORT",
	"SLURM_LAUNCH_NODE_IPADDR",
	// Open MPI and PMIx (docs.open-mpi.org, "Environment variables set
	// for MPI applications"; the PMIx standard, "PMIx environment"): mpirun
	// and the PMIx server give every launch its own job id, URI and
	// rendezvous files.
	"OMPI_*", "PMIX_*",
}

// IsVolatile reports whether name is one of the launch's volatile names:
// its volatile list or BuiltinVolatile.
func (l *Launch) IsVolatile(name string) bool {
	for _, p := range l.Volatile {
		if matchInherit(p, name) {
			return true
		}
	}
	for _, p := range BuiltinVolatile {
		if matchInherit(p, name) {
			return true
		}
	}
	return false
}
