package shape

import (
	"regexp"

	"mvdan.cc/sh/v3/syntax"
)

// paramRE matches $NAME, ${NAME} and $! in text.
var paramRE = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*|!)`)

// WordNames adds the parameters a word names: its expansions and, in
// quoted text run later (a trap's action), $NAME and ${NAME}.
func WordNames(w *syntax.Word, names map[string]bool) {
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Param != nil {
				names[n.Param.Value] = true
			}
		case *syntax.SglQuoted:
			for _, m := range paramRE.FindAllStringSubmatch(n.Value, -1) {
				names[m[1]] = true
			}
		case *syntax.Lit:
			for _, m := range paramRE.FindAllStringSubmatch(n.Value, -1) {
				names[m[1]] = true
			}
		}
		return true
	})
	delete(names, "")
}
