package lintreport

import (
	"os"
	"path/filepath"
	"strings"
)

// repoRoot returns the root of the git work tree holding dir (the nearest
// ancestor with a .git entry), or "" when there is none. Nothing is run.
func repoRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// locator turns the paths of a result (relative to Options.Dir, or
// absolute) into SARIF artifact locations relative to the source root:
// the repository's root when Dir is in a git work tree (what code scanning
// expects), else Dir.
type locator struct {
	dir  string // absolute Options.Dir
	root string // absolute %SRCROOT%
}

func newLocator(dir string) locator {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	root := repoRoot(abs)
	if root == "" {
		root = abs
	}
	return locator{dir: abs, root: root}
}

// rel returns file relative to the source root (slash-separated), or ""
// when it lies outside it.
func (l locator) rel(file string) string {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.dir, p)
	}
	r, err := filepath.Rel(l.root, p)
	if err != nil {
		return ""
	}
	// Slashes first: on Windows Rel gives ..\x.
	r = filepath.ToSlash(r)
	if r == ".." || strings.HasPrefix(r, "../") {
		return ""
	}
	return r
}
