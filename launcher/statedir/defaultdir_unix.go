//go:build unix

package statedir

import (
	"fmt"
	"os"
	"syscall"
)

// ownedDir checks that path is a directory (not a symlink) owned by uid
// and not writable by group or others.
func ownedDir(path string, uid int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != uid || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is not a directory of uid %d that only it may write", path, uid)
	}
	return nil
}
