package envres

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/fileutil"

	"github.com/childproof/childproof/internal/inputfile"
)

// skipDirs are directories FindScripts does not enter besides hidden ones
// (.git, .venv, …): vendored trees, whose scripts a repository's review
// does not own.
var skipDirs = map[string]bool{
	"node_modules": true, "vendor": true, "third_party": true, "third-party": true,
	"bower_components": true, "site-packages": true, "__pycache__": true,
}

// FindScripts returns the shell scripts under dir, as shfmt -l finds
// them (mvdan.cc/sh/v3/fileutil): regular files, not hidden, with a .sh,
// .bash or .mksh extension, or without an extension and with a shell
// shebang (sh, dash, bash, mksh). Unlike shfmt it leaves out zsh and bats
// files (another language than the one lint reads), symlinks, and the
// directories of skipDirs and hidden ones (.git). The paths are dir joined
// with the path below it, in lexical order.
func FindScripts(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || skipDirs[name]) {
				return filepath.SkipDir
			}
			return nil
		}
		switch fileutil.CouldBeScript2(d) {
		case fileutil.ConfIsScript:
			if ext := filepath.Ext(name); ext == ".zsh" || ext == ".bats" {
				return nil
			}
			out = append(out, p)
		case fileutil.ConfIfShebang:
			if sh := shebangOf(p); sh != "" && sh != "zsh" && sh != "bats" {
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// shebangOf returns the shell a file's shebang names (fileutil.Shebang), or "".
func shebangOf(p string) string {
	buf, err := inputfile.Head(p, 128)
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i+1]
	}
	return fileutil.Shebang(buf)
}
