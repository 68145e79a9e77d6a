package spec

import (
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/childproof/childproof/internal/wrapper"
	"github.com/childproof/childproof/redact"
)

// DefaultInherit is the list of caller variables a launch passes through when
// its spec names none.
var DefaultInherit = []string{"PATH", "HOME", "LANG"}

// DefaultForbidWrappers is the list of wrapper rules a launch forbids when its
// spec names none.
var DefaultForbidWrappers = []string{wrapper.LoginShell, wrapper.InteractiveShell, wrapper.EnvReset}

// BuiltinAliases maps known no-op alias names to the variable that does the
// work. Spec alias blocks add to it.
var BuiltinAliases = map[string]string{"HF_XET_DISABLE": "HF_HUB_DISABLE_XET"}

// Launch is one launch block: what to start and what to prove about it. Its
// methods only read it: a Launch is safe for concurrent use while no one
// changes it (WithEnv returns a changed copy).
type Launch struct {
	// LogKeep is how many earlier logs a new launch keeps (NAME.log.1 …
	// NAME.log.N); nil means DefaultLogKeep.
	LogKeep *int
	// Name is the launch block's label. It names the launch in the state dir.
	Name string
	// SpecPath is the absolute path of the spec file; empty for a Launch built in Go.
	SpecPath string

	// Command is the argv exec'd directly, without a shell. Exactly one of
	// Command and Dispatch is set.
	Command []string
	// Dispatch is a script and its arguments, run with
	// bash --noprofile --norc; it must exec the worker.
	Dispatch []string
	// Dir is the absolute working directory. Empty means the spec file's
	// directory (or the caller's working directory for a Launch built in Go).
	Dir string
	// EnvFile is the absolute path of an env file loaded first. Empty: none.
	EnvFile string
	// Inherit names the caller variables passed through. Nil means
	// DefaultInherit; an empty non-nil slice passes nothing.
	Inherit []string
	// Env holds the overrides; they win over EnvFile and Inherit.
	Env map[string]string
	// Require names variables that must be present and non-empty on the worker.
	Require []string
	// ForbidWrappers names wrapper rules that must not appear in the live
	// chain. Nil means DefaultForbidWrappers.
	ForbidWrappers []string

	// Worker selects the process that does the work. The zero value means
	// the port's owner, else the launched process. With Roles, it is the
	// primary role's selector (PrimaryRole).
	Worker Worker
	// Roles are the launch's labelled worker "NAME" blocks, in source
	// order (nil: the unlabelled worker block, or none): each selects its
	// own processes, each verified, and owns the ports it lists.
	Roles []Role
	// Ports are the declared listening ports. Nil: no port is checked.
	Ports []Port
	// Ready says how readiness is established. The zero value means a TCP
	// connect to each port (after ownership is established), 10s timeout.
	Ready Ready

	// Attempts is how many times a launch is retried on a race (port grabbed,
	// worker not yet there). Zero means 1.
	Attempts int
	// OnStale is what run does when our own recorded previous instance
	// holds the port. Empty means StaleFail.
	OnStale OnStale

	// User and Group are the user and group (names or numeric ids) the
	// launched process runs as, set by childproof at exec with the user's
	// supplementary groups; empty: childproof's own. They need root.
	User, Group string

	// DependsOn names launches of the same file that `up` starts and
	// verifies before this one (and `down` stops after it).
	DependsOn []string

	// Restart says what foreground supervision does when the worker exits.
	// The zero value means policy "never".
	Restart Restart
	// Stop is the stop block: the first signal every stop sends and the
	// wait before SIGKILL. The zero value means SIGTERM, then SIGKILL
	// after 10s.
	Stop Stop
	// Oneshot marks a launch that runs to completion (a migration, a
	// download): success is its exit 0; it has no port, ready or restart.
	Oneshot bool
	// Slurm holds the #SBATCH settings `export --to slurm` writes. The zero
	// value writes none.
	Slurm Slurm
	// Secret names variables whose value is secret wherever it comes from
	// (the spec's secret list): it is masked in every output and never
	// stored, even when it comes from --set. A value shorter than
	// redact.MinLen (6 bytes) is not masked in output text (too common:
	// "0", "true"); it is still never stored.
	Secret []string
	// Volatile names (or inherit-style patterns) the launched tree sets
	// anew on every launch (a rank's TORCHELASTIC_ERROR_FILE): left out
	// of relaunch's delta check, as the built-in BuiltinVolatile are.
	Volatile []string
	// SecretValues are the values env() and file() returned while the
	// spec file was read, each with the name shown in its place (the
	// variable's name, or "file:PATH"). Every output masks them; see
	// Secrets for the whole definition.
	SecretValues []redact.Secret

	// Aliases maps no-op alias names to the real variable: BuiltinAliases
	// plus the file's alias blocks.
	Aliases map[string]string

	// Ranges locate the spec's parts for diagnostics; zero for a Launch
	// built in Go.
	Ranges Ranges

	// Unknown names the parts (by the keys of Sensitive) whose value is
	// an env() the caller did not set, for a command that launches
	// nothing (LoadOptions.LaunchesNothing): their value reads as "" and
	// was not validated; a command must not act on it.
	Unknown map[string]bool

	// Sensitive names the parts whose value came from the caller's
	// environment or a file (env(), file()), by the same keys as
	// Ranges.Parts ("command[2]", "dir", "worker.exe", "env[NAME]"…). A
	// command that prints the launch must redact them. Env values are never
	// printed; export writes an env value only when it is not sensitive.
	Sensitive map[string]bool
}

// Pos is a position in a spec file, as hcl.Pos: a line and column
// (both from 1) and a byte offset (from 0). It is plain data, safe for
// concurrent use while no one changes it.
type Pos struct {
	Line, Column, Byte int
}

// Range is a span of a spec file, as hcl.Range (package schema converts
// between the two: schema.HCLRange, schema.SpecRange). It is plain data,
// safe for concurrent use while no one changes it.
type Range struct {
	Filename   string
	Start, End Pos
}

// Ranges holds source ranges of a launch block's parts. A zero Range
// means the part was not written in the spec. They are plain data, safe for
// concurrent use while no one changes them.
type Ranges struct {
	// Block is the launch block's header (`launch "NAME" {`).
	Block Range
	// Whole spans the launch block from its type to its closing brace.
	Whole    Range
	Command  Range
	Dispatch Range
	EnvFile  Range
	Env      map[string]Range
	Require  Range
	Ports    []Range
	// Parts holds the range of every part written in the spec, keyed by
	// path: "command", "command[0]", "dir", "env[NAME]", "require[1]",
	// "worker.comm", "port[0]", "port[0].number", "ready.timeout"…
	Parts map[string]Range
}

// Worker selects the worker process. At most one field is set. It is plain
// data, safe for concurrent use while no one changes it.
type Worker struct {
	// Comm is the exact /proc/PID/comm (at most 15 bytes). Empty: not used.
	Comm string
	// Exe is the absolute path of the worker's executable. Empty: not used.
	Exe string
	// Count is the number of worker processes of a multi-process job
	// (torchrun, accelerate, deepspeed, mpirun ranks): the N deepest
	// processes of the tree that match the selector. 0 means 1.
	Count int
}

// Role is one labelled worker "NAME" block: a kind of process of the job
// (an API process and the engine core it spawns; a router and its
// replicas), selected by Worker, each of whose processes is verified. It is
// plain data, safe for concurrent use while no one changes it.
type Role struct {
	Name   string
	Worker Worker
	// Ports are the labels of the declared ports a process of this role
	// must own.
	Ports []string
}

// PrimaryRole returns the index in l.Roles of the role whose first process
// is the launch's worker (Report.Worker, the record's Worker): the first
// that lists a port, else the first; -1 without roles.
func (l *Launch) PrimaryRole() int {
	for i, r := range l.Roles {
		if len(r.Ports) > 0 {
			return i
		}
	}
	if len(l.Roles) > 0 {
		return 0
	}
	return -1
}

// RoleOfPort returns the role that lists the port labelled name, or nil.
func (l *Launch) RoleOfPort(name string) *Role {
	for i := range l.Roles {
		for _, p := range l.Roles[i].Ports {
			if p == name {
				return &l.Roles[i]
			}
		}
	}
	return nil
}

// N returns the number of workers w asks for (at least 1).
func (w Worker) N() int { return max(w.Count, 1) }

// Port is a declared listening port. It is plain data, safe for concurrent
// use while no one changes it.
type Port struct {
	// Name is the port block's label.
	Name string
	// Number is the TCP port, 1–65535.
	Number int
	// Address is the bind address the worker must use. Empty means 127.0.0.1.
	Address string
	// AllowAllInterfaces permits 0.0.0.0 or :: as Address.
	AllowAllInterfaces bool
}

// Ready describes the readiness check. It is plain data, safe for
// concurrent use while no one changes it.
type Ready struct {
	// HTTP is a path for a GET that must answer 2xx (or one of Status).
	// Empty, with Exec and Log empty too: a TCP connect.
	HTTP string
	// Status lists the HTTP status codes that count as ready. Empty: 2xx.
	Status []int
	// Exec is an argv run (no shell) in the launch's dir and environment
	// until it exits 0. Empty: no command.
	Exec []string
	// Log is an RE2 regular expression a line of the worker's output must
	// match. Empty: no log line is waited for.
	Log string
	// Timeout bounds the wait for readiness. Zero means 10s.
	Timeout time.Duration
}

// OnStale is what run does when a declared port is held by this
// launch's own recorded previous instance (on_stale).
type OnStale string

// The on_stale values.
const (
	// StaleReplace: stop our own recorded previous instance holding the
	// port, then launch.
	StaleReplace OnStale = "replace"
	// StaleFail: refuse the launch (exit 4), leaving it running.
	StaleFail OnStale = "fail"
)

// RestartPolicy is when foreground supervision restarts an exited
// worker (restart.policy).
type RestartPolicy string

// Restart policies, the values of restart.policy.
const (
	RestartNever RestartPolicy = "never"
	// RestartOnFailure: after a non-zero exit or a signal.
	RestartOnFailure RestartPolicy = "on-failure"
	RestartAlways    RestartPolicy = "always"
)

// RestartPolicies lists the values restart.policy accepts.
var RestartPolicies = []RestartPolicy{RestartNever, RestartOnFailure, RestartAlways}

// Restart is the restart block: what foreground supervision (run, up) does
// when the verified worker exits. Each restart is verified on its new
// worker and recorded. It is plain data, safe for concurrent use while no
// one changes it.
type Restart struct {
	// Policy is when to restart. Empty means RestartNever.
	Policy RestartPolicy
	// Max bounds the number of restarts, 1–1000. Zero means 5.
	Max int
	// Backoff is the wait before a restart. Zero means 1s.
	Backoff time.Duration
}

// EffectivePolicy returns Policy, or RestartNever when it is empty.
func (r Restart) EffectivePolicy() RestartPolicy {
	if r.Policy == "" {
		return RestartNever
	}
	return r.Policy
}

// EffectiveMax returns Max, or 5 when it is zero or negative.
func (r Restart) EffectiveMax() int {
	if r.Max < 1 {
		return 5
	}
	return r.Max
}

// EffectiveBackoff returns Backoff, or 1s when it is zero or negative.
func (r Restart) EffectiveBackoff() time.Duration {
	if r.Backoff <= 0 {
		return time.Second
	}
	return r.Backoff
}

// Slurm is the slurm block: settings for `export --to slurm`, written as
// #SBATCH lines. Empty fields are not written. It is plain data, safe for
// concurrent use while no one changes it.
type Slurm struct {
	// Partition is the partition (or comma-separated partitions) to run in.
	Partition string
	// Gres is the generic resources, like "gpu:1" or "gpu:a100:2".
	Gres string
	// Time is the time limit in SLURM's notation: "MM", "MM:SS",
	// "HH:MM:SS", "D-HH", "D-HH:MM" or "D-HH:MM:SS".
	Time string
	// Nodes is how many nodes the job spans (0: one). Each node's task runs
	// childproof run for the ranks on that node and verifies them there.
	Nodes int
	// TasksPerNode is how many childproof run tasks a node runs (0: one);
	// each keeps its own state dir.
	TasksPerNode int
}

// Protected returns the launch's protected variables: the keys of Env plus
// Require, sorted, without duplicates.
func (l *Launch) Protected() []string {
	seen := map[string]bool{}
	var out []string
	for k := range l.Env {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, k := range l.Require {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// EffectiveInherit returns Inherit, or DefaultInherit when it is nil.
func (l *Launch) EffectiveInherit() []string {
	if l.Inherit == nil {
		return DefaultInherit
	}
	return l.Inherit
}

// EffectiveForbidWrappers returns ForbidWrappers, or DefaultForbidWrappers when it is nil.
func (l *Launch) EffectiveForbidWrappers() []string {
	if l.ForbidWrappers == nil {
		return DefaultForbidWrappers
	}
	return l.ForbidWrappers
}

// ReadyTimeout returns Ready.Timeout, or 10s when it is zero.
func (l *Launch) ReadyTimeout() time.Duration {
	if l.Ready.Timeout <= 0 {
		return 10 * time.Second
	}
	return l.Ready.Timeout
}

// EffectiveAttempts returns Attempts, or 1 when it is zero or negative.
func (l *Launch) EffectiveAttempts() int {
	if l.Attempts < 1 {
		return 1
	}
	return l.Attempts
}

// EffectiveOnStale returns OnStale, or StaleFail when it is empty.
func (l *Launch) EffectiveOnStale() OnStale {
	if l.OnStale == "" {
		return StaleFail
	}
	return l.OnStale
}

// HostPort is p's address and number as host:port ([::1]:8000 for an IPv6
// address; PortAddress).
func (p Port) HostPort() string {
	return net.JoinHostPort(p.PortAddress(), strconv.Itoa(p.Number))
}

// PortAddress returns p.Address, or 127.0.0.1 when it is empty.
func (p Port) PortAddress() string {
	if p.Address == "" {
		return "127.0.0.1"
	}
	return p.Address
}
