//go:build unix

package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// maxPathLinks bounds the symlinks followed while walking a state dir
// path (the kernel's own limit for one lookup is 40).
const maxPathLinks = 40

// MakePath creates the state dir (mode 0700, with its missing
// parents) after the walk OpenSSH's secure_path does for authorized_keys,
// as one step: as root, the path is resolved from / by descriptors, one
// component at a time — openat(O_NOFOLLOW|O_DIRECTORY) from the directory
// already checked, a missing one made with mkdirat in it, each checked on
// its own descriptor (fstat) — so nothing is ever created through a
// component that was not checked (a symlink planted after a check and
// before the mkdir is met by O_NOFOLLOW, not followed). Every directory on
// the path must be owned by root or the effective uid and not writable by
// others (or by a group other than root's), unless it is a sticky
// directory owned by root (/tmp: nobody else can rename or remove what
// root put there); the state dir itself must be the effective uid's and
// writable by nobody else; and every symlink on it must be owned by root
// or the effective uid, its target walked the same way. Otherwise someone
// else could redirect what root creates — the `sudo -E` case, where HOME
// is another user's and ~/.local is their symlink — and the state dir is
// refused, naming the component.
//
// A process that is not root may only be fooled into writing where it
// can write anyway; there the path is created as os.MkdirAll does.
func MakePath(dir string) error {
	_, fd, err := makePath(dir)
	if fd >= 0 {
		unix.Close(fd)
	}
	return err
}

// makeStateDir is MakePath, then checkStateDir of the state dir made:
// the stat that ends MakePath (its walk's fstat of the state dir, or
// os.MkdirAll's first stat of one that is there) is the one checked,
// without a second. fd is the state dir open, as root's walk opened and
// checked it (the caller closes it); -1 when there is none.
func makeStateDir(dir string) (perm fs.FileMode, fd int, err error) {
	st, fd, err := makePath(dir)
	if err != nil {
		return 0, -1, err
	}
	if st == nil {
		perm, err := checkStateDir(dir)
		return perm, -1, err
	}
	if err := checkDirStat(dir, st); err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return 0, -1, err
	}
	return fs.FileMode(st.Mode & 0o777), fd, nil
}

// makePath is MakePath, returning the state dir's stat when it took one
// (nil: none), and the state dir open when the walk ended on it (-1:
// not; the caller closes it).
func makePath(dir string) (*unix.Stat_t, int, error) {
	euid := geteuid()
	if euid != 0 {
		// os.MkdirAll's own first look, kept: a directory there is
		// all it would find.
		var st unix.Stat_t
		if unix.Stat(dir, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return &st, -1, nil
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, -1, fmt.Errorf("state dir: %w", err)
		}
		return nil, -1, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, -1, fmt.Errorf("state dir: %w", err)
	}
	w := &pathWalk{dir: dir, euid: euid}
	defer w.close()
	root, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, -1, fmt.Errorf("state dir: %w", &fs.PathError{Op: "open", Path: "/", Err: err})
	}
	w.stack = []pathDir{{fd: root, path: "/"}}
	var st unix.Stat_t
	if err := w.check(root, "/", false, &st); err != nil {
		return nil, -1, err
	}
	lastFd := -1
	queue := strings.Split(abs, "/")
	links := 0
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			w.up()
			continue
		}
		cur := w.stack[len(w.stack)-1]
		p := filepath.Join(cur.path, c)
		fd, target, err := w.openAt(cur.fd, c, p)
		if err != nil {
			return nil, -1, err
		}
		if fd < 0 {
			// A symlink of root's or ours: its target is walked in its place.
			if links++; links > maxPathLinks {
				return nil, -1, pathError(dir, p, fmt.Sprintf("leads through more than %d symbolic links", maxPathLinks))
			}
			if filepath.IsAbs(target) {
				w.toRoot()
			}
			queue = append(strings.Split(target, "/"), queue...)
			continue
		}
		w.stack = append(w.stack, pathDir{fd: fd, path: p})
		// The state dir itself (the last component) gets the stricter
		// check of checkOwner.
		last := onlyDots(queue)
		if err := w.check(fd, p, last, &st); err != nil {
			return nil, -1, err
		}
		if last {
			lastFd = fd
		}
	}
	if top := w.stack[len(w.stack)-1]; top.fd == lastFd {
		// The walk ended on the state dir it checked last (not above it,
		// after a ".."): st is its fstat, and its descriptor is the
		// caller's.
		w.stack = w.stack[:len(w.stack)-1]
		return &st, lastFd, nil
	}
	return nil, -1, nil
}

// pathWalk is MakePath's walk: the descriptors of the directories
// from / to where it is.
type pathWalk struct {
	dir   string
	euid  int
	stack []pathDir
}

// pathDir is a directory of the walk, open.
type pathDir struct {
	fd   int
	path string
}

// openAt opens the directory name in dirfd (p: its path) without
// following a symlink, creating it (mode 0700) when it is missing. A
// symlink is not opened: fd is -1 and target is what it points to, once
// its owner is checked.
func (w *pathWalk) openAt(dirfd int, name, p string) (fd int, target string, err error) {
	// Bounded: each round either opens, or met a change of the entry
	// (created or removed meanwhile) that the next round sees.
	for range 8 {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		switch {
		case err == nil:
			return fd, "", nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ENOENT):
			if err := unix.Mkdirat(dirfd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
				return -1, "", fmt.Errorf("state dir: %w", &fs.PathError{Op: "mkdir", Path: p, Err: err})
			}
			continue
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
			var st unix.Stat_t
			if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				if errors.Is(err, unix.ENOENT) {
					continue
				}
				return -1, "", fmt.Errorf("state dir: %w", &fs.PathError{Op: "lstat", Path: p, Err: err})
			}
			if st.Mode&unix.S_IFMT != unix.S_IFLNK {
				return -1, "", fmt.Errorf("state dir: %w", &fs.PathError{Op: "open", Path: p, Err: unix.ENOTDIR})
			}
			if st.Uid != 0 && int(st.Uid) != w.euid {
				return -1, "", pathError(w.dir, p, fmt.Sprintf("is a symbolic link owned by uid %d (not root)", st.Uid))
			}
			// The link is root's or ours, in a directory only root (or
			// we, or a sticky directory's rule) lets change: what it
			// says now is what it said when checked.
			buf := make([]byte, unix.PathMax)
			n, err := unix.Readlinkat(dirfd, name, buf)
			if err != nil {
				return -1, "", fmt.Errorf("state dir: %w", &fs.PathError{Op: "readlink", Path: p, Err: err})
			}
			return -1, string(buf[:n]), nil
		default:
			return -1, "", fmt.Errorf("state dir: %w", &fs.PathError{Op: "open", Path: p, Err: err})
		}
	}
	return -1, "", pathError(w.dir, p, "keeps changing while childproof opens it")
}

// check checks the directory open as fd, filling st with its fstat:
// securePathStat on the way, and checkOwner for the state dir itself
// (last).
func (w *pathWalk) check(fd int, p string, last bool, st *unix.Stat_t) error {
	if err := unix.Fstat(fd, st); err != nil {
		return fmt.Errorf("state dir: %w", &fs.PathError{Op: "stat", Path: p, Err: err})
	}
	if last {
		return checkOwner(p, st)
	}
	return securePathStat(p, st, w.euid, w.dir)
}

// up goes to the parent directory (.. of / is /).
func (w *pathWalk) up() {
	if len(w.stack) > 1 {
		unix.Close(w.stack[len(w.stack)-1].fd)
		w.stack = w.stack[:len(w.stack)-1]
	}
}

// toRoot goes back to / (an absolute symlink target).
func (w *pathWalk) toRoot() {
	for len(w.stack) > 1 {
		w.up()
	}
}

func (w *pathWalk) close() {
	for _, d := range w.stack {
		unix.Close(d.fd)
	}
	w.stack = nil
}

// securePathStat checks one directory of the path: its owner and mode.
func securePathStat(p string, st *unix.Stat_t, euid int, dir string) error {
	if st.Uid != 0 && int(st.Uid) != euid {
		return pathError(dir, p, fmt.Sprintf("is owned by uid %d, not root", st.Uid))
	}
	sticky := st.Mode&unix.S_ISVTX != 0 && st.Uid == 0
	switch {
	case st.Mode&0o002 != 0 && !sticky:
		return pathError(dir, p, "is writable by others")
	case st.Mode&0o020 != 0 && st.Gid != 0 && !sticky:
		return pathError(dir, p, fmt.Sprintf("is writable by group %d", st.Gid))
	}
	return nil
}

func pathError(dir, component, why string) *failure.Error {
	return &failure.Error{Outcome: outcome.UntrustedStateDir,
		Msg:  fmt.Sprintf("state dir %s: %s %s; whoever controls it could redirect what childproof, as root, creates there", dir, component, why),
		Path: dir, Fix: failure.FixStateDirTrust,
		Hint: "use a state dir on a path only root controls (Options.StateDir, or CHILDPROOF_STATE_DIR)"}
}

// onlyDots reports whether the components left name no further directory.
func onlyDots(queue []string) bool {
	for _, c := range queue {
		if c != "" && c != "." {
			return false
		}
	}
	return true
}
