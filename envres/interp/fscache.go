package interp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/envres/script"
	"github.com/childproof/childproof/internal/inputfile"
)

// fileFacts is what the analysis asks of a path, asked of the file system
// once: a 1,000-script corpus names the same few files thousands of times.
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
func (a *analyzer) facts(abs string) *fileFacts {
	if f, ok := a.fcache[abs]; ok {
		return f
	}
	f := &fileFacts{pseudo: a.pseudo(abs)}
	if !f.pseudo {
		fi, err := os.Stat(abs)
		f.regular = err == nil && fi.Mode().IsRegular()
	}
	a.fcache[abs] = f
	return f
}

// pseudo reports whether abs is, or resolves to, a path under /proc, /sys
// or /dev, whose files are never read: some block or never end. The
// directory's resolution is cached; only a symlink itself is resolved.
func (a *analyzer) pseudo(abs string) bool {
	if underPseudo(abs) {
		return true
	}
	dir := filepath.Dir(abs)
	rd, ok := a.dcache[dir]
	if !ok {
		rd = dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			rd = r
		}
		a.dcache[dir] = rd
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

// isFile reports whether abs is a regular file that may be read.
func (a *analyzer) isFile(abs string) bool {
	f := a.facts(abs)
	return !f.pseudo && f.regular
}

// openHead returns the first bytes of a regular file.
func (a *analyzer) openHead(abs string) ([]byte, error) {
	f := a.facts(abs)
	if f.headSet {
		return f.head, f.headErr
	}
	f.headSet = true
	switch {
	case f.pseudo || !f.regular:
		f.headErr = errors.New("not a regular file")
	case a.parsed[abs] != nil && a.parsed[abs].src != nil:
		f.head = a.parsed[abs].src[:min(512, len(a.parsed[abs].src))]
	default:
		f.head, f.headErr = inputfile.Head(abs, 512)
	}
	return f.head, f.headErr
}

// isShellScript reports whether a file starts with a shell shebang, or is
// a text file named *.sh without one.
func (a *analyzer) isShellScript(abs string) bool {
	f, err := a.openHead(abs)
	if err != nil {
		return false
	}
	if script.ShebangShell(f) {
		return true
	}
	return !bytes.HasPrefix(f, []byte("#!")) && strings.HasSuffix(abs, ".sh") && bytes.IndexByte(f, 0) < 0
}
