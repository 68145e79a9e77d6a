package expand

import (
	"path/filepath"
	"strings"
)

// Globbable reports whether f is an unquoted literal word with glob
// characters.
func Globbable(f Field) bool {
	return f.Known && !f.Quoted && strings.ContainsAny(f.Str, "*?[")
}

// Glob expands an unquoted literal word with glob characters against
// the files on disk, as the shell does (no match: the word stays).
func Glob(cwd string, f Field) []Field {
	if !Globbable(f) {
		return []Field{f}
	}
	pat := f.Str
	if !filepath.IsAbs(pat) {
		if cwd == "" {
			return []Field{f}
		}
		pat = filepath.Join(cwd, pat)
	}
	matches, err := filepath.Glob(pat)
	if err != nil || len(matches) == 0 {
		return []Field{f}
	}
	out := make([]Field, 0, len(matches))
	for _, m := range matches {
		if !filepath.IsAbs(f.Str) {
			if rel, err := filepath.Rel(cwd, m); err == nil {
				m = rel
			}
		}
		g := f
		g.Str, g.Val = m, Lit(m)
		out = append(out, g)
	}
	return out
}
