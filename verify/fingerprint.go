package verify

import (
	"strings"

	"github.com/childproof/childproof/redact"
)

// Fingerprint identifies one process across time. pid + start time repeat
// within a clock tick after pid reuse; the pidfs inode does not. It is
// plain data, safe for concurrent use while no one changes it.
type Fingerprint struct {
	Pid       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
	UID       int    `json:"uid"`
	Exe       string `json:"exe"`
	Comm      string `json:"comm"`
	// PidfsInode is fstat(pidfd).st_ino where the kernel has pidfs (6.9+);
	// 0 when unknown.
	PidfsInode uint64 `json:"pidfs_inode,omitempty"`
}

// Liveness is what became of a fingerprinted process.
type Liveness string

// The liveness of a fingerprinted process; the strings are ps's statuses.
const (
	// Alive: the process runs (pid, start time and pidfs inode match).
	Alive Liveness = "alive"
	// Gone: no process has the pid, or it is a zombie.
	Gone Liveness = "gone"
	// Reused: another process has the pid now.
	Reused Liveness = "pid reused"
	// Unknown: it cannot be told (no pidfd, unreadable records).
	Unknown Liveness = "unknown"
)

// Matches reports whether b is the same process as a.
//
// A process's identity is pid, start time and pidfs inode. None of them
// changes when it execs or changes its uid. The inode differs between two
// processes that reuse one pid within a clock tick, so where the kernel
// gives a pidfs inode, a fingerprint without one, or with another, is not
// the same process. exe and uid are compared only on a kernel without
// pidfs. A shim that exec'd the real program in the same pid, or a server
// that dropped privileges, is still the same process.
func (a Fingerprint) Matches(b Fingerprint) bool {
	if a.Pid != b.Pid || a.StartTime != b.StartTime || a.PidfsInode != b.PidfsInode {
		return false
	}
	if a.PidfsInode != 0 {
		return true
	}
	if a.UID != b.UID {
		return false
	}
	if a.Exe != "" && b.Exe != "" && !SameExe(a.Exe, b.Exe) {
		return false
	}
	return true
}

// SameExe reports whether two exe paths name the same program, where one
// of them may be as a record keeps it. A binary rebuilt while it runs
// shows as "PATH (deleted)". A recorded path built from a secret is
// masked, as in <MODEL_DIR>/bin/server (redact.MayShow).
func SameExe(a, b string) bool {
	a, b = strings.TrimSuffix(a, " (deleted)"), strings.TrimSuffix(b, " (deleted)")
	return a == b || redact.MayShow(a, b) || redact.MayShow(b, a)
}
