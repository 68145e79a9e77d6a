package script

import (
	"path/filepath"
	"strings"
)

// RebasePath names p, a path relative to dir (or absolute; dir "" leaves
// a relative p as it is), for a user in the directory wd: relative to wd
// when it lies below it, else absolute. "" and CommandFile stay, and so
// does every path when wd is "" (not known).
func RebasePath(p, dir, wd string) string {
	if p == "" || p == CommandFile {
		return p
	}
	if dir != "" && !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if wd == "" {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
