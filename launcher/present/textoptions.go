package present

import (
	"path/filepath"
	"strings"
)

// TextOptions tune the text forms of rounds and relaunch results
// (DeltaText, OverrideText, EnvFileChangeText). The zero value shows
// paths as recorded and no value; it is safe for concurrent use.
type TextOptions struct {
	// Dir, when set, shows a path that lies below it relative to it (the
	// CLI passes its working directory); other paths, and every path when
	// Dir is "", are shown as recorded.
	Dir string
	// ShowValues shows a non-secret --set value and the text an env file
	// edit replaced (history --show-values). A secret value is never shown.
	ShowValues bool
}

// path is p as o shows it: relative to o.Dir when it lies below it (as
// envres.RebasePath(p, "", o.Dir)).
func (o TextOptions) path(p string) string {
	if p == "" || o.Dir == "" {
		return p
	}
	if rel, err := filepath.Rel(o.Dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
