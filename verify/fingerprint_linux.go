package verify

import (
	"errors"
	"fmt"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/proc"
	"golang.org/x/sys/unix"
)

// TakeFingerprint fingerprints the process pid.
func TakeFingerprint(p proc.FS, pid int) (Fingerprint, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return Fingerprint{}, fmt.Errorf("pid %d: pidfd: %w", pid, err)
	}
	defer unix.Close(fd)
	return fingerprintFD(p, pid, fd)
}

// FingerprintPidfd fingerprints the process pid through fd, a pidfd of it
// its caller holds (the one clone gave its starter), which stays open.
func FingerprintPidfd(p proc.FS, pid, fd int) (Fingerprint, error) {
	return fingerprintFD(p, pid, fd)
}

// FingerprintImagePidfd is FingerprintPidfd with the Image the process
// runs, taken from the same reads of its records.
func FingerprintImagePidfd(p proc.FS, pid, fd int) (Fingerprint, string, error) {
	fp, s, err := fingerprintStat(p, pid, fd)
	if err != nil {
		return fp, "", err
	}
	if s.State == 'X' {
		return fp, "", nil // as Image has it
	}
	// (Not a zombie, and its exe read as Image reads it.)
	return fp, fp.Exe + " " + ExecArea(s), nil
}

// OpenFingerprint fingerprints the process pid and returns a pidfd of it
// with the fingerprint (-1 with an error): what TakeFingerprint and then
// Open on its fingerprint decide, on one pidfd, the one whose records the
// fingerprint was read through, and the process checked alive after them.
func OpenFingerprint(p proc.FS, pid int) (Fingerprint, int, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return Fingerprint{}, -1, fmt.Errorf("pid %d: pidfd: %w", pid, err)
	}
	fp, err := fingerprintFD(p, pid, fd)
	if err != nil {
		unix.Close(fd)
		return fp, -1, err
	}
	return fp, fd, nil
}

// fingerprintFD fingerprints pid, whose pidfd is fd. Reading the records
// after the pidfd is open and checking the pidfd still refers to a live
// process pins them to that very process.
func fingerprintFD(p proc.FS, pid, fd int) (Fingerprint, error) {
	fp, _, err := fingerprintStat(p, pid, fd)
	return fp, err
}

// fingerprintStat is fingerprintFD with the stat record it read.
func fingerprintStat(p proc.FS, pid, fd int) (Fingerprint, proc.Stat, error) {
	fp := Fingerprint{Pid: pid}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err == nil {
		fp.PidfsInode = st.Ino
	}
	s, err := p.Stat(pid)
	if err != nil {
		return fp, s, err
	}
	fp.StartTime = s.StartTime
	fp.Comm = s.Comm
	uid, err := realUID(p, pid, fd)
	if err != nil {
		return fp, s, err
	}
	fp.UID = uid
	fp.Exe, _ = p.Exe(pid) // EACCES for another uid when not root
	if pidfd.Exited(fd) {
		return fp, s, fmt.Errorf("pid %d: exited: %w", pid, proc.ErrGone)
	}
	if s.State == 'Z' {
		return fp, s, fmt.Errorf("pid %d: zombie: %w", pid, proc.ErrGone)
	}
	return fp, s, nil
}

// realUID returns the real uid of pid, whose pidfd is fd: the first uid
// of its status's Uid line, as the pidfd's PIDFD_GET_INFO gives it (Linux
// 6.13 and later) without reading and parsing the whole status. Through
// an FS over another root than the system's /proc, and where the kernel
// does not answer, it is read from status.
func realUID(p proc.FS, pid, fd int) (int, error) {
	if p.Root == "" || p.Root == "/proc" {
		info := unix.PidfdInfo{Mask: unix.PIDFD_INFO_CREDS}
		if unix.IoctlPidfdInfo(fd, &info) == nil && info.Mask&unix.PIDFD_INFO_CREDS != 0 {
			return int(info.Ruid), nil
		}
	}
	ss, err := p.Status(pid)
	return ss.UID, err
}

// Open returns a pidfd of the fingerprinted process, or the liveness that
// says why there is none (Gone, or Reused when another process has the pid).
// Signals sent through the returned pidfd reach exactly this process.
func (a Fingerprint) Open(p proc.FS) (int, Liveness, error) {
	if a.Pid <= 0 {
		return -1, Gone, errors.New("no pid recorded")
	}
	fd, err := unix.PidfdOpen(a.Pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return -1, Gone, nil
		}
		return -1, Unknown, fmt.Errorf("pid %d: pidfd: %w", a.Pid, err)
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && (st.Ino != 0 || a.PidfsInode != 0) {
		// A kernel with pidfs: identity is pid + start time + pidfs inode
		// (Matches), read with one fstat and /proc/PID/stat, no more —
		// ps checks a thousand recorded workers, many of whose pids now
		// name other processes.
		l, err := a.checkPidfs(p, fd, st.Ino)
		if l != Alive {
			unix.Close(fd)
			return -1, l, err
		}
		return fd, Alive, nil
	}
	now, err := fingerprintFD(p, a.Pid, fd)
	if err != nil {
		unix.Close(fd)
		if errors.Is(err, proc.ErrGone) {
			return -1, Gone, nil
		}
		return -1, Unknown, err
	}
	if !a.Matches(now) {
		unix.Close(fd)
		return -1, Reused, nil
	}
	return fd, Alive, nil
}

// checkPidfs is Open's check of the process behind pidfd fd, whose pidfs
// inode is ino, against a, on a kernel with pidfs: the decision of
// Matches without reading status or exe, which it does not compare then.
func (a Fingerprint) checkPidfs(p proc.FS, fd int, ino uint64) (Liveness, error) {
	if ino != a.PidfsInode {
		// Another process has the pid (pidfs inodes are never reused).
		if pidfd.Exited(fd) {
			return Gone, nil
		}
		return Reused, nil
	}
	s, err := p.Stat(a.Pid)
	switch {
	case err != nil && errors.Is(err, proc.ErrGone):
		return Gone, nil
	case err != nil:
		return Unknown, err
	case pidfd.Exited(fd) || s.State == 'Z':
		return Gone, nil
	case s.StartTime != a.StartTime:
		return Reused, nil
	}
	return Alive, nil
}

// Check returns the liveness of the fingerprinted process.
func (a Fingerprint) Check(p proc.FS) Liveness {
	fd, l, _ := a.Open(p)
	if fd >= 0 {
		unix.Close(fd)
	}
	return l
}
