package spec

import (
	"github.com/childproof/childproof/internal/specrule"
	"path"
	"sort"
	"strings"
)

// RuntimeVars are the well-known runtime variables whose silent loss
// changes what a server does (the wrong GPU, the wrong libraries, the wrong
// Python packages, the wrong thread count). When one of them is set in the
// caller's environment and a launch would not pass it — it is not matched
// by inherit, not a key of env, not set by the env file — check and run
// warn, naming it. Entries are inherit patterns. docs/spec.md lists them.
var RuntimeVars = []string{
	// GPUs and collectives.
	"CUDA_*", "NCCL_*", "NVIDIA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
	"TORCH_*", "PYTORCH_*", "XLA_FLAGS", "JAX_*",
	// Threads.
	"OMP_*", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TOKENIZERS_PARALLELISM",
	// Libraries and interpreters.
	"LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX",
	// Model hubs, caches and engines.
	"HF_*", "HUGGINGFACE_*", "TRANSFORMERS_*", "VLLM_*",
}

// IsInheritPattern reports whether an inherit entry is a glob pattern
// ("CUDA_*", "*") rather than a plain name.
func IsInheritPattern(s string) bool { return specrule.IsInheritPattern(s) }

// matchInherit reports whether the inherit entry pattern (a name or a
// glob) passes the variable name. BASH_ENV and ENV are never passed,
// whatever pattern names them; see RemovedVars.
func matchInherit(pattern, name string) bool {
	if !IsInheritPattern(pattern) {
		return pattern == name
	}
	ok, _ := path.Match(pattern, name)
	return ok
}

// Inherits reports whether the launch's effective inherit list passes name.
func (l *Launch) Inherits(name string) bool {
	for _, p := range l.EffectiveInherit() {
		if matchInherit(p, name) {
			return true
		}
	}
	return false
}

// InheritIsLiteral reports whether every effective inherit entry is a plain
// name (no pattern).
func (l *Launch) InheritIsLiteral() bool {
	for _, p := range l.EffectiveInherit() {
		if IsInheritPattern(p) {
			return false
		}
	}
	return true
}

// IsRuntimeVar reports whether name is one of RuntimeVars.
func IsRuntimeVar(name string) bool {
	for _, p := range RuntimeVars {
		if matchInherit(p, name) {
			return true
		}
	}
	return false
}

// DroppedRuntimeVars returns the well-known runtime variables (RuntimeVars)
// set in environ (NAME=VALUE entries, the caller's environment) that the
// launch would not pass to its worker: not inherited, not a key of env,
// not set by the env file. Sorted; names only.
func (l *Launch) DroppedRuntimeVars(environ []string) []string {
	fileNames, _ := l.EnvFileNames()
	var out []string
	seen := map[string]bool{}
	step := InSlurmStep(func(n string) (string, bool) {
		for _, kv := range environ {
			if k, v, ok := strings.Cut(kv, "="); ok && k == n {
				return v, true
			}
		}
		return "", false
	})
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if !IsRuntimeVar(name) || l.Inherits(name) || step && IsSlurmStepVar(name) {
			continue
		}
		if _, inEnv := l.Env[name]; inEnv {
			continue
		}
		if containsString(fileNames, name) {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
