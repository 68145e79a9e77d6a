package envres

import "strings"

// EnvActivate is an activation that runs scripts lint does not follow.
var EnvActivate = &Rule{
	Name: "env-activate", Severity: SeverityWarning,
	Short: "an environment activation runs scripts this lint does not follow",
	Doc: `conda activate (and eval "$(conda shell.bash hook)"), source venv/bin/activate, module load / ml
(Lmod, Environment Modules), spack load, eval "$(direnv export bash)", pyenv activate and the like
run activation scripts that are not part of the repository (activate.d hooks, modulefiles, .envrc):
they can set, unset or re-source any variable, protected ones included, and this lint cannot see
which. Fix: activate before the override is applied (in the caller), or call the environment's
interpreter by its path (/opt/conda/envs/NAME/bin/python, .venv/bin/python) instead of activating.`,
	Run: runEnvActivate,
}

// env-activate: every activation, with the protected names it could set.
func runEnvActivate(p *Pass) {
	what := "any variable the worker inherits"
	if len(p.Protected) > 0 {
		what = "any variable, including protected " + strings.Join(p.Protected, ", ")
	}
	for _, act := range p.Activations {
		p.Report(act.At, act.Mechanism+" runs activation scripts this lint does not follow: they can set "+what, p.Protected...)
	}
}
