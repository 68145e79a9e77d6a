package spec

// SlurmStepInherit lists what a launch passes to its worker, besides its
// own inherit list, when childproof runs inside a SLURM job step (see
// InSlurmStep): the step's own SLURM_* variables and the devices SLURM
// bound to it. gres/gpu sets CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and
// GPU_DEVICE_ORDINAL for the step (measured with SLURM 22.05); the others
// are set by other GPU plugins and site prologs. Without them a worker of a
// `--gres=gpu:1` job would see every GPU of the node, or none. Entries are
// inherit patterns; a key of env or a name of the env file still wins over
// the step's value. docs/spec.md lists them.
var SlurmStepInherit = []string{
	"SLURM_*",
	"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "HIP_VISIBLE_DEVICES",
	"ZE_AFFINITY_MASK", "CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY",
}

// InSlurmStep reports whether the environment lookup answers for is that of
// a SLURM job step: SLURM_JOB_ID and SLURM_STEP_ID are both set (srun sets
// them for every step; a batch script outside srun has SLURM_JOB_ID only).
func InSlurmStep(lookup func(string) (string, bool)) bool {
	job, ok1 := lookup("SLURM_JOB_ID")
	step, ok2 := lookup("SLURM_STEP_ID")
	return ok1 && ok2 && job != "" && step != ""
}

// IsSlurmStepVar reports whether name is one of SlurmStepInherit.
func IsSlurmStepVar(name string) bool {
	for _, p := range SlurmStepInherit {
		if matchInherit(p, name) {
			return true
		}
	}
	return false
}
