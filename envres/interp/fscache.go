package interp

import (
	"bytes"
	"strings"

	"github.com/childproof/childproof/envres/script"
)

// What the file system says of a path is asked once (a.fileCache,
// envres/internal/fscache).

// isFile reports whether abs is a regular file that may be read.
func (a *analyzer) isFile(abs string) bool { return a.fileCache.IsFile(abs) }

// openHead returns the first bytes of a regular file (of its text, when
// it was parsed already).
func (a *analyzer) openHead(abs string) ([]byte, error) {
	var src []byte
	if p := a.parsed[abs]; p != nil {
		src = p.src
	}
	return a.fileCache.Head(abs, src)
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
