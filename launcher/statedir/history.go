package statedir

import (
	"os"
	"path/filepath"
)

// RoundsDir is the directory of name's rounds: Files.History, or in a
// state dir of the legacy naming that could not be migrated, the legacy
// one.
func (s *Store) RoundsDir(name string) string {
	dir := s.Files.History(name)
	if Legacy(name) != Encode(name) {
		// A state dir of the legacy naming that could not be migrated
		// (read-only) is read as it is.
		if _, err := os.Lstat(dir); err != nil {
			if old := filepath.Join(s.Dir, HistoryDir, Legacy(name)); exists(old) {
				return old
			}
		}
	}
	return dir
}

// exists reports whether path names something (not followed).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
