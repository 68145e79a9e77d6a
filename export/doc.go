// Package export renders a launch of a childproof spec for another engine —
// a systemd service unit, a Kubernetes Deployment or Pod, a SLURM batch
// script, a Nomad job — with `childproof verify` in the engine's own check
// slot, so the proof travels with the launch.
//
// No secret value is ever written: a value from env() or file(), a name in
// the launch's secret list and every value of its env file become
// references the engine resolves (an EnvironmentFile=, a Secret, a Nomad
// variable, the job's own environment). A spec feature the engine cannot
// express is an *UnsupportedError naming it.
//
// The package uses no engine library at run time: the Kubernetes and Nomad
// module's package initialisation would cost every childproof command
// milliseconds (docs/export.md). Its tests decode each output strictly into
// the engines' own types (k8s.io/api, github.com/hashicorp/nomad/api) and
// check units with systemd-analyze verify.
package export
