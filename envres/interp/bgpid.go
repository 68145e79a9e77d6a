package interp

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/shape"
)

// A background launch whose pid the script keeps (PID=$!) and kills —
// kill "$PID" later, or in a trap that runs at exit (trap 'kill $PID'
// EXIT, trap cleanup EXIT with the kill in cleanup) — is a helper the
// script manages: it ends with the script, so it is not reported as a
// launch nobody waits for (the server a benchmark or test script starts,
// probes and stops).

// tagPid records that name holds the pid of the last background launch.
func (st *state) tagPid(name string) {
	if len(st.bg) == 0 {
		return
	}
	bg := append([]bgLaunch(nil), st.bg...)
	bg[len(bg)-1].pidVar = name
	st.bg = bg
}

// killBg marks the background launches whose pid variable is named (or
// the last one, for $!) as managed: no background-launch; a wait still
// reaches them.
func (st *state) killBg(names map[string]bool) {
	if len(names) == 0 || len(st.bg) == 0 {
		return
	}
	bg := append([]bgLaunch(nil), st.bg...)
	for i, b := range bg {
		if b.pidVar != "" && names[b.pidVar] || names["!"] && i == len(bg)-1 {
			bg[i].managed = true
		}
	}
	st.bg = bg
}

// killBuiltin is kill: the pid variables its arguments name.
func (a *analyzer) killBuiltin(st *state, c *syntax.CallExpr) {
	names := map[string]bool{}
	for _, w := range c.Args[1:] {
		shape.WordNames(w, names)
	}
	st.killBg(names)
}

// trapBuiltin is trap ACTION SIGNAL… with EXIT among the signals: the pid
// variables the action kills, in its own text or in a function it calls.
func (a *analyzer) trapBuiltin(st *state, c *syntax.CallExpr) {
	if len(c.Args) < 3 {
		return
	}
	atExit := false
	for _, w := range c.Args[2:] {
		switch strings.ToUpper(w.Lit()) {
		case "EXIT", "SIGEXIT", "0":
			atExit = true
		}
	}
	if !atExit {
		return // trap 'kill $PID' TERM forwards a signal: the launch may outlive the script
	}
	names := map[string]bool{}
	act := c.Args[1]
	text := shape.WordText(act)
	if killRE.MatchString(text) {
		shape.WordNames(act, names)
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(" \t\n;&|'\"", r) }) {
		if fd := st.funcs.get(f); fd != nil && fd.body != nil && fd.body.stmt != nil {
			syntax.Walk(fd.body.stmt, func(n syntax.Node) bool {
				if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 1 && ce.Args[0].Lit() == "kill" {
					for _, w := range ce.Args[1:] {
						shape.WordNames(w, names)
					}
				}
				return true
			})
		}
	}
	st.killBg(names)
}

var killRE = regexp.MustCompile(`(^|[^A-Za-z0-9_])kill([^A-Za-z0-9_]|$)`)
