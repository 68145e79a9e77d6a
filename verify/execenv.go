package verify

import (
	"strings"

	"github.com/childproof/childproof/proc"
)

// ExecEnv is exec-time evidence of a worker's environment: the block the
// kernel set at its last execve, captured by the launcher while it traced
// the launch (before the worker ran a single instruction), so that a
// process that later writes a title over its own environment block
// (setproctitle: gunicorn, nginx, redis, postgres, many Python servers) is
// still judged by what it was given.
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
}

// usable reports whether the evidence still describes pid: it runs the
// program that was exec'd then.
func (e *ExecEnv) usable(p proc.FS, pid int) bool {
	if e == nil || (e.Vars == nil && e.Digests == nil) {
		return false
	}
	if e.Exe == "" {
		return true
	}
	exe, err := p.Exe(pid)
	if err != nil {
		return true // unreadable (another uid): nothing says it exec'd since
	}
	return strings.TrimSuffix(exe, " (deleted)") == strings.TrimSuffix(e.Exe, " (deleted)")
}
