package proctree

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
)

// Cgroup2Root returns the cgroup v2 directory of this process, or "".
func Cgroup2Root() string {
	mnt := cgroup2Mount()
	if mnt == "" {
		return ""
	}
	root := ""
	proc.ScanFile("/proc/self/cgroup", func(b []byte) {
		for l := range bytes.Lines(b) {
			if rest, ok := bytes.CutPrefix(l, []byte("0::")); ok {
				root = filepath.Join(mnt, string(bytes.TrimSuffix(rest, []byte("\n"))))
				return
			}
		}
	})
	return root
}

// cgroup2Mount returns where the cgroup v2 hierarchy is mounted, or "".
var cgroup2Mount = sync.OnceValue(func() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	mnt := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ... mountpoint ... - fstype source opts
		line := sc.Text()
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		fields := strings.Fields(pre)
		if len(fields) >= 5 {
			mnt = fields[4]
			break
		}
	}
	return mnt
})

// IsCgroupName reports whether base has the shape of the cgroups
// childproof creates for launch name: childproof-NAME-XXXXXXXX (8 lower
// hex digits).
func IsCgroupName(base, name string) bool {
	return isCgroupNameOf(base, statedir.CgroupPrefix(name), statedir.LegacyCgroupPrefix(name))
}

// isCgroupNameOf is IsCgroupName with the name's prefix and its legacy
// prefix made already (statedir.CgroupPrefix, LegacyCgroupPrefix).
func isCgroupNameOf(base, prefix, legacy string) bool {
	rest, ok := strings.CutPrefix(base, prefix)
	if !ok {
		// A cgroup a record of the legacy naming names.
		rest, ok = strings.CutPrefix(base, legacy)
	}
	if !ok || len(rest) != 8 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil && strings.ToLower(rest) == rest
}

// TrustedCgroup returns dir when a record's cgroup path is one childproof
// could have created for launch name — an absolute, clean path inside the
// cgroup v2 hierarchy, named childproof-NAME-XXXXXXXX, a real directory
// on a cgroup2 file system — and "" otherwise. Nothing else is ever read,
// written to or removed as a launch's cgroup.
func TrustedCgroup(dir, name string) string {
	if !CgroupShape(dir, name) {
		return ""
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return ""
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(dir, &sfs); err != nil || sfs.Type != unix.CGROUP2_SUPER_MAGIC {
		return ""
	}
	return dir
}

// staleCgroup is how old an empty cgroup of a launch's name must be for
// NewCgroup to remove it as a killed childproof's leftover.
const staleCgroup = time.Minute

// NewCgroup creates a child cgroup for a launch and opens it; it returns
// "" when the kernel or our privileges do not allow one.
func NewCgroup(name string) (string, *os.File) {
	if os.Geteuid() != 0 || os.Getenv("CHILDPROOF_NO_CGROUP") != "" {
		return "", nil
	}
	base := Cgroup2Root()
	if base == "" {
		return "", nil
	}
	// What follows is relative to base's descriptor: one path walk to
	// it, not one for each step.
	bfd, err := openNoPoll(unix.AT_FDCWD, base, unix.O_DIRECTORY)
	if err != nil {
		return "", nil
	}
	defer unix.Close(bfd)
	var st unix.Stat_t
	if unix.Fstatat(bfd, "cgroup.procs", &st, 0) != nil {
		return "", nil
	}
	// Empty cgroups of this name left by a childproof that was killed
	// (nobody removed them) go now: rmdir fails on a cgroup that still
	// has processes. Only those older than staleCgroup: the lock we hold
	// is this state dir's, and a launch of the same name from another
	// state dir (parallel tests, each with its own) has its new cgroup
	// empty until its tree starts in it, which removing it made start
	// without one.
	prefix := statedir.CgroupPrefix(name)
	sweepStale(bfd, prefix, statedir.LegacyCgroupPrefix(name))
	rnd := make([]byte, 4)
	rand.Read(rnd)
	leaf := prefix + hex.EncodeToString(rnd)
	dir := filepath.Join(base, leaf)
	if err := mkdirat(bfd, leaf); err != nil {
		return "", nil
	}
	// Opened without the runtime's poller, which refuses a directory
	// (five system calls for nothing): the descriptor is only handed to
	// clone3 (CLONE_INTO_CGROUP).
	fd, err := openNoPoll(bfd, leaf, 0)
	if err != nil {
		unix.Unlinkat(bfd, leaf, unix.AT_REMOVEDIR)
		return "", nil
	}
	return dir, os.NewFile(uintptr(fd), dir)
}

// openNoPoll opens path (relative to the directory dirfd) read-only and
// close-on-exec, with flags, as a bare descriptor.
func openNoPoll(dirfd int, path string, flags int) (int, error) {
	fd, err := unix.Openat(dirfd, path, unix.O_RDONLY|unix.O_CLOEXEC|flags, 0)
	for err == unix.EINTR {
		fd, err = unix.Openat(dirfd, path, unix.O_RDONLY|unix.O_CLOEXEC|flags, 0)
	}
	return fd, err
}

// mkdirat makes the directory leaf (0755) in the directory dirfd.
func mkdirat(dirfd int, leaf string) error {
	err := unix.Mkdirat(dirfd, leaf, 0o755)
	for err == unix.EINTR {
		err = unix.Mkdirat(dirfd, leaf, 0o755)
	}
	return err
}

// sweepStale removes the empty cgroups in the directory dirfd (read
// from its start, once) named with prefix or legacy (isCgroupNameOf)
// and older than staleCgroup. The directory is read with getdents into
// a buffer, not with os.ReadDir (sorted DirEntry values); only a name of
// the launch's is looked at further (fstatat, not following a symlink,
// as DirEntry.Info).
func sweepStale(dirfd int, prefix, legacy string) {
	var buf [8192]byte
	var names []string
	for {
		n, err := unix.Getdents(dirfd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names[:0])
		for _, leaf := range names {
			if !isCgroupNameOf(leaf, prefix, legacy) {
				continue
			}
			var st unix.Stat_t
			if unix.Fstatat(dirfd, leaf, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
				continue
			}
			if time.Since(time.Unix(st.Mtim.Unix())) > staleCgroup {
				unix.Unlinkat(dirfd, leaf, unix.AT_REMOVEDIR)
			}
		}
	}
}

// CgroupPids lists the processes of cgroup dir.
func CgroupPids(dir string) ([]int, error) {
	b, err := proc.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	return ParsePids(b), nil
}

// ParsePids is the pids of a cgroup.procs listing b.
func ParsePids(b []byte) []int {
	var out []int
	for f := range bytes.FieldsSeq(b) {
		if n, err := strconv.Atoi(string(f)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// CgroupKill SIGKILLs every process of cgroup dir (Linux 5.14+).
func CgroupKill(dir string) error {
	if dir == "" {
		return errors.New("no cgroup")
	}
	return os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
}

// CgroupShape reports whether dir has the shape of a cgroup childproof
// creates for launch name: an absolute, clean path inside the cgroup v2
// mount, named childproof-NAME-XXXXXXXX.
func CgroupShape(dir, name string) bool {
	if dir == "" || !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return false
	}
	mnt := cgroup2Mount()
	if mnt == "" || !strings.HasPrefix(dir, strings.TrimSuffix(mnt, "/")+"/") {
		return false
	}
	return IsCgroupName(filepath.Base(dir), name)
}

// CgroupRemoved reports whether dir, the cgroup a record names for
// launch name, was one childproof could have made for it and no longer
// exists while its parent (childproof's cgroup root) does. Its tree is
// then empty, by construction: the kernel removes a cgroup only while it
// has no member (rmdir fails with EBUSY otherwise), a launch recorded
// with a cgroup was only ever started into it (the journal is rewritten
// without one before a start falls back to none), and only root can move
// a process out of it. So aliveness never falls back to the marker scan
// of every process's environ for it (ps, run's check of the previous
// instance): the tree of a launch with a cgroup is its cgroup.
func CgroupRemoved(dir, name string) bool {
	if !CgroupShape(dir, name) {
		return false
	}
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		return false
	}
	var sfs unix.Statfs_t
	return unix.Statfs(filepath.Dir(dir), &sfs) == nil && sfs.Type == unix.CGROUP2_SUPER_MAGIC
}

// RemoveCgroup removes an emptied cgroup, retrying while exiting tasks
// still pin it.
func RemoveCgroup(dir string) {
	if dir == "" {
		return
	}
	for range 50 {
		if rmdir(dir) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// rmdir removes directory dir; it reports whether dir is gone. It is
// os.Remove without its unlink(2) first, which fails on every cgroup.
func rmdir(dir string) bool {
	err := unix.Rmdir(dir)
	if err == unix.ENOTDIR {
		err = os.Remove(dir)
	}
	return err == nil || errors.Is(err, os.ErrNotExist)
}

// RemoveEmptyCgroup removes cgroup dir if it is empty (one try; rmdir
// fails on a cgroup that still has processes).
func RemoveEmptyCgroup(dir string) {
	if dir != "" {
		os.Remove(dir)
	}
}

// InCgroup reports whether pid's cgroup v2 path is the one of dir.
func InCgroup(p proc.FS, pid int, dir string) bool {
	b, err := proc.ReadFile(p.Path(pid, "cgroup"))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "0::"); ok && rest != "/" && rest != "" {
			return filepath.Join(cgroup2Mount(), rest) == dir
		}
	}
	return false
}
