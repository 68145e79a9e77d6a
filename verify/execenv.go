package verify

import (
	"errors"
	"fmt"

	"github.com/childproof/childproof/proc"
)

// ExecEnv is exec-time evidence of a worker's environment: the block the
// kernel set at its last execve. The launcher captures it while it traces
// the launch, before the worker runs a single instruction. So a process
// that later writes a title over its own environment block is still
// judged by what it was given; gunicorn, nginx, redis, postgres and many
// Python servers do that with setproctitle. A Verifier only reads it: an
// ExecEnv is safe for concurrent use while no one changes it.
type ExecEnv struct {
	// Vars are the block's entries (a capture in this process), or
	// Digests maps every name in it to its keyed digest (a record). Vars
	// win when both are set.
	Vars    []proc.Var
	Digests map[string]string
	// Exe is the worker's /proc/PID/exe at that exec. The evidence holds
	// only while the worker still runs that program: a later exec (in the
	// same pid) replaced its environment.
	Exe string
	// Area is ExecArea of the worker's stat at that exec ("" unknown). An
	// exec lays out a new stack, at a new random address: when the live
	// area differs, the worker exec'd since — even the same program, from
	// a thread the tracer did not follow — and the evidence is stale.
	Area string
}

// ErrStaleExecEvidence says that the worker exec'd again after the exec
// that was captured. That exec came from a thread other than its main one
// (the launcher traces processes, not threads), or after the launch was
// verified. Report.EnvNote says it, and it is the Problem.Err of the
// env-unreadable problems.
var ErrStaleExecEvidence = errors.New("the exec-time evidence is of an earlier exec: the worker exec'd again since (from a thread other than its main one, or after the launch), and that exec was not captured")

// ExecArea describes where an exec put a process's environment block
// (stat fields 50–51, env_start and env_end): "" when the kernel does not
// show them (no ptrace access, a zombie).
func ExecArea(s proc.Stat) string {
	if s.EnvStart == 0 && s.EnvEnd == 0 {
		return ""
	}
	return fmt.Sprintf("%x-%x", s.EnvStart, s.EnvEnd)
}

// usable reports whether the evidence still describes pid: it runs the
// program that was exec'd then, from the stack laid out then. When not, why
// says what replaced it (nil when there is no evidence).
func (e *ExecEnv) usable(p proc.FS, pid int) (ok bool, why error) {
	if e == nil || (e.Vars == nil && e.Digests == nil) {
		return false, nil
	}
	if e.Exe != "" {
		// Unreadable (another uid): nothing says it exec'd since.
		if exe, err := p.Exe(pid); err == nil && !SameExe(e.Exe, exe) {
			return false, fmt.Errorf("the exec-time evidence is of %s, and the worker runs %s since a later exec", e.Exe, exe)
		}
	}
	if e.Area != "" {
		if s, err := p.Stat(pid); err == nil {
			if now := ExecArea(s); now != "" && now != e.Area {
				return false, ErrStaleExecEvidence
			}
		}
	}
	return true, nil
}
