package envres

import (
	"fmt"
	"os"
	"path/filepath"
)

// ExpandDirs replaces each directory among scripts by the shell scripts
// under it (FindScripts), as lint's command line takes them: a relative
// entry is resolved against dir ("" is the working directory), and each
// script found is given as it would be typed (the directory as written,
// joined with the path below it). Entries that are not directories, or do
// not exist, stay as they are (Lint reports a missing one).
func ExpandDirs(dir string, scripts []string) ([]string, error) {
	var out []string
	for _, s := range scripts {
		p := s
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() {
			out = append(out, s)
			continue
		}
		found, err := FindScripts(p)
		if err != nil {
			return nil, fmt.Errorf("walking %s: %w", s, err)
		}
		for _, f := range found {
			rel, err := filepath.Rel(p, f)
			if err != nil {
				return nil, err
			}
			out = append(out, filepath.Join(s, rel))
		}
	}
	return out, nil
}
