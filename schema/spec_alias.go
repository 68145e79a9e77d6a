package schema

import (
	"github.com/childproof/childproof/spec"
	"github.com/hashicorp/hcl/v2"
)

// The model of a launch lives in package spec, which a Go program that
// builds a Launch imports without HCL; these names keep schema's API as
// it was.
type (
	Launch          = spec.Launch
	Ranges          = spec.Ranges
	Worker          = spec.Worker
	Role            = spec.Role
	Port            = spec.Port
	Ready           = spec.Ready
	OnStale         = spec.OnStale
	RestartPolicy   = spec.RestartPolicy
	Restart         = spec.Restart
	Slurm           = spec.Slurm
	Stop            = spec.Stop
	InvalidError    = spec.InvalidError
	FieldProblem    = spec.FieldProblem
	LaunchNameError = spec.LaunchNameError
	Summary         = spec.Summary
	SummaryText     = spec.SummaryText
	Shown           = spec.Shown
	VarOrigin       = spec.VarOrigin
	VarSource       = spec.VarSource
	SpecArg         = spec.SpecArg
)

// Constants of package spec.
const (
	StaleReplace       = spec.StaleReplace
	StaleFail          = spec.StaleFail
	RestartNever       = spec.RestartNever
	RestartOnFailure   = spec.RestartOnFailure
	RestartAlways      = spec.RestartAlways
	DefaultLogKeep     = spec.DefaultLogKeep
	MaxLogKeep         = spec.MaxLogKeep
	DefaultStopSignal  = spec.DefaultStopSignal
	DefaultStopTimeout = spec.DefaultStopTimeout
	MaxFileSize        = spec.MaxFileSize
	MaxRestartBackoff  = spec.MaxRestartBackoff
	HiddenValue        = spec.HiddenValue
	UnsetValue         = spec.UnsetValue
	FromEnv            = spec.FromEnv
	FromEnvFile        = spec.FromEnvFile
	FromInherit        = spec.FromInherit
	FromInheritPattern = spec.FromInheritPattern
	DefaultSpecFile    = spec.DefaultSpecFile
)

// Variables of package spec (the same slices and maps).
var (
	DefaultInherit        = spec.DefaultInherit
	DefaultForbidWrappers = spec.DefaultForbidWrappers
	BuiltinAliases        = spec.BuiltinAliases
	BuiltinVolatile       = spec.BuiltinVolatile
	RestartPolicies       = spec.RestartPolicies
	RuntimeVars           = spec.RuntimeVars
	SlurmStepInherit      = spec.SlurmStepInherit
	StopSignals           = spec.StopSignals
	ErrExeMissing         = spec.ErrExeMissing
	ErrNoDefaultSpec      = spec.ErrNoDefaultSpec
)

// IsEnvName is spec.IsEnvName.
func IsEnvName(s string) bool { return spec.IsEnvName(s) }

// IsLaunchName is spec.IsLaunchName.
func IsLaunchName(s string) bool { return spec.IsLaunchName(s) }

// IsInheritPattern is spec.IsInheritPattern.
func IsInheritPattern(s string) bool { return spec.IsInheritPattern(s) }

// InSlurmStep is spec.InSlurmStep.
func InSlurmStep(lookup func(string) (string, bool)) bool { return spec.InSlurmStep(lookup) }

// IsSlurmStepVar is spec.IsSlurmStepVar.
func IsSlurmStepVar(name string) bool { return spec.IsSlurmStepVar(name) }

// LookPath is spec.LookPath.
func LookPath(prog, path, dir string) (string, bool) { return spec.LookPath(prog, path, dir) }

// ResolveExe is spec.ResolveExe.
func ResolveExe(exe string) string { return spec.ResolveExe(exe) }

// ExeNeverMatches is spec.ExeNeverMatches.
func ExeNeverMatches(exe string) error { return spec.ExeNeverMatches(exe) }

// GoField is spec.GoField.
func GoField(path string) string { return spec.GoField(path) }

// HCLRange is r as an hcl.Range.
func HCLRange(r spec.Range) hcl.Range {
	return hcl.Range{Filename: r.Filename,
		Start: hcl.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:   hcl.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte}}
}

// SpecRange is r as a spec.Range.
func SpecRange(r hcl.Range) spec.Range {
	return spec.Range{Filename: r.Filename,
		Start: spec.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:   spec.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte}}
}

// DefaultSpec is spec.DefaultSpec.
func DefaultSpec() (string, error) { return spec.DefaultSpec() }

// ExpandSpecArg is spec.ExpandSpecArg.
func ExpandSpecArg(arg string) string { return spec.ExpandSpecArg(arg) }

// DefaultSpecIn is spec.DefaultSpecIn.
func DefaultSpecIn(dir string) (string, bool) { return spec.DefaultSpecIn(dir) }

// ParseSpecArg is spec.ParseSpecArg.
func ParseSpecArg(arg string) SpecArg { return spec.ParseSpecArg(arg) }

// IsSpecArg is spec.IsSpecArg.
func IsSpecArg(arg string) bool { return spec.IsSpecArg(arg) }
