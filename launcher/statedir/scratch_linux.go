package statedir

import (
	"os"

	"golang.org/x/sys/unix"
)

// scratchMinFree is the room a tmpfs must have left to take a test's
// state dir: its logs are kept in memory there.
const scratchMinFree = 256 << 20

// ScratchParent is the directory a test's own state dir is made in when
// its caller chose none: $TMPDIR when it is set; else the first of
// $XDG_RUNTIME_DIR and /dev/shm that is a tmpfs this process can write,
// with 256 MiB free; else os.TempDir(). On a tmpfs a state file costs
// no disk inode: creating one on a disk file system can cost ten times
// the CPU (ext4 skips the inodes freed in the last minutes), and a start
// and stop create about eighteen.
func ScratchParent() string {
	if os.Getenv("TMPDIR") != "" {
		return os.TempDir()
	}
	return scratchIn(os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm")
}

// scratchIn returns the first of dirs that is a roomy tmpfs this process
// can write ("" is none), else os.TempDir().
func scratchIn(dirs ...string) string {
	for _, dir := range dirs {
		if dir != "" && roomyTmpfs(dir) {
			return dir
		}
	}
	return os.TempDir()
}

// roomyTmpfs reports whether dir is a tmpfs this process can write with
// scratchMinFree left.
func roomyTmpfs(dir string) bool {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil || fs.Type != unix.TMPFS_MAGIC {
		return false
	}
	if uint64(fs.Bavail)*uint64(fs.Bsize) < scratchMinFree {
		return false
	}
	return unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK|unix.X_OK, unix.AT_EACCESS) == nil
}
