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
	if legacyDiffers(name) {
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

// legacyDiffers reports whether name's legacy file stem is not its
// encoding (Legacy(name) != Encode(name)). A name Encode keeps as it is
// ([A-Za-z0-9-]) has no '/', NUL or "..": its legacy stem is the same,
// found without Legacy's replacer (RoundsDir is asked a dozen times a
// start).
func legacyDiffers(name string) bool {
	enc := Encode(name)
	return enc != name && Legacy(name) != enc
}

// exists reports whether path names something (not followed).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
