package fscache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/internal/inputfile"
)

// Cache holds what the file system said of each path the walk asked
// about, asked once: a 1,000-script corpus names the same few files
// thousands of times. It is not safe for concurrent use.
type Cache struct {
	files map[string]*fileFacts
	dirs  map[string]string // a directory's resolution of its symlinks
}

// New returns an empty cache.
func New() *Cache {
	return &Cache{files: map[string]*fileFacts{}, dirs: map[string]string{}}
}

// fileFacts is what the analysis asks of a path.
type fileFacts struct {
	pseudo  bool // under /proc, /sys or /dev, also through a symlink: never read
	regular bool
	head    []byte // the first bytes, once read
	headErr error
	headSet bool
}

var pseudoRoots = []string{"/proc", "/sys", "/dev"}

func underPseudo(p string) bool {
	for _, r := range pseudoRoots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// facts returns the (cached) facts of the file at abs.
func (c *Cache) facts(abs string) *fileFacts {
	if f, ok := c.files[abs]; ok {
		return f
	}
	f := &fileFacts{pseudo: c.pseudo(abs)}
	if !f.pseudo {
		fi, err := os.Stat(abs)
		f.regular = err == nil && fi.Mode().IsRegular()
	}
	c.files[abs] = f
	return f
}

// pseudo reports whether abs is, or resolves to, a path under /proc, /sys
// or /dev, whose files are never read: some block or never end. The
// directory's resolution is cached; only a symlink itself is resolved.
func (c *Cache) pseudo(abs string) bool {
	if underPseudo(abs) {
		return true
	}
	dir := filepath.Dir(abs)
	rd, ok := c.dirs[dir]
	if !ok {
		rd = dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			rd = r
		}
		c.dirs[dir] = rd
	}
	if rd != dir && underPseudo(filepath.Join(rd, filepath.Base(abs))) {
		return true
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if r, err := filepath.EvalSymlinks(abs); err == nil && underPseudo(r) {
			return true
		}
	}
	return false
}

// IsFile reports whether abs is a regular file that may be read.
func (c *Cache) IsFile(abs string) bool {
	f := c.facts(abs)
	return !f.pseudo && f.regular
}

// Pseudo reports whether abs is, or resolves to, a path under /proc, /sys
// or /dev, whose files are never read.
func (c *Cache) Pseudo(abs string) bool { return c.facts(abs).pseudo }

// Head returns the first bytes of a regular file, from src when it is
// the file's text already read (nil when not).
func (c *Cache) Head(abs string, src []byte) ([]byte, error) {
	f := c.facts(abs)
	if f.headSet {
		return f.head, f.headErr
	}
	f.headSet = true
	switch {
	case f.pseudo || !f.regular:
		f.headErr = errors.New("not a regular file")
	case src != nil:
		f.head = src[:min(512, len(src))]
	default:
		f.head, f.headErr = inputfile.Head(abs, 512)
	}
	return f.head, f.headErr
}
