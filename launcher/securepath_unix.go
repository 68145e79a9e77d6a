//go:build unix

package launcher

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/outcome"
)

// maxPathLinks bounds the symlinks followed while walking a state dir
// path (the kernel's own limit for one lookup is 40).
const maxPathLinks = 40

// checkStatePath walks the state dir's path from / as the kernel resolves
// it, before anything is created through it, the way OpenSSH's
// secure_path checks the path to authorized_keys. As root, every existing
// directory on it must be owned by root or the effective uid and not
// writable by others (or by a group other than root's), unless it is a
// sticky directory owned by root (/tmp: nobody else can rename or remove
// what root put there); and every symlink on it must be owned by root or
// the effective uid, its target walked the same way. Otherwise someone
// else could redirect what root creates — the `sudo -E` case, where HOME
// is another user's and ~/.local is their symlink — and the state dir is
// refused, naming the component. Components that do not exist yet are
// fine: childproof creates them, as root, mode 0700.
//
// A process that is not root may only be fooled into writing where it
// can write anyway; there the walk is skipped.
func checkStatePath(dir string) error {
	euid := geteuid()
	if euid != 0 {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	cur := "/"
	if err := securePathDir(cur, euid, dir); err != nil {
		return err
	}
	queue := strings.Split(abs, "/")
	links := 0
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		p := filepath.Join(cur, c)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil // created by childproof from here on
			}
			return fmt.Errorf("state dir: %w", &fs.PathError{Op: "lstat", Path: p, Err: err})
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			if st.Uid != 0 && int(st.Uid) != euid {
				return pathError(dir, p, fmt.Sprintf("is a symbolic link owned by uid %d (not root)", st.Uid))
			}
			if links++; links > maxPathLinks {
				return pathError(dir, p, fmt.Sprintf("leads through more than %d symbolic links", maxPathLinks))
			}
			target, err := os.Readlink(p)
			if err != nil {
				return fmt.Errorf("state dir: %w", err)
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			queue = append(strings.Split(target, "/"), queue...)
		case unix.S_IFDIR:
			// The state dir itself (the last component) gets the stricter
			// check of checkStateDir.
			if len(queue) > 0 && !onlyDots(queue) {
				if err := securePathStat(p, &st, euid, dir); err != nil {
					return err
				}
			}
			cur = p
		default:
			return nil // not a directory: creating the state dir fails and says so
		}
	}
	return nil
}

// securePathDir is securePathStat of the directory at p.
func securePathDir(p string, euid int, dir string) error {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fmt.Errorf("state dir: %w", &fs.PathError{Op: "stat", Path: p, Err: err})
	}
	return securePathStat(p, &st, euid, dir)
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

func pathError(dir, component, why string) *Error {
	return &Error{Outcome: outcome.UntrustedStateDir, Kind: KindState,
		Msg: fmt.Sprintf("state dir %s: %s %s; whoever controls it could redirect what childproof, as root, creates there", dir, component, why),
		Hint: "use a state dir on a path only root controls (--state-dir /root/.local/state/childproof, or CHILDPROOF_STATE_DIR); " +
			"under 'sudo', keep root's HOME (sudo without -E, or sudo -H)"}
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
