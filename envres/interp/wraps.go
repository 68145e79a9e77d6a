package interp

import "strings"

// wrapNote is a wrapper finding that holds only if the worker runs under
// the wrapper (contract §4): a wrapped command that runs and returns
// (sudo apt-get install …, su -c "createdb …" postgres) cannot change the
// environment of a worker started later. A command's state carries the
// notes of the wrappers it runs under; they are reported where a worker
// starts in that state (an exec'd or background command, a script's last
// command) and dropped otherwise.
type wrapNote struct {
	rule string // wrapper.EnvReset, wrapper.LoginShell or wrapper.InteractiveShell
	site Site
	msg  string
	vars []string
	// always: reported at any worker point, even a last command that is
	// known to return (a shebang's login or interactive options count
	// whenever the script launches anything).
	always bool
}

// addWrap records that the command of cst runs under a wrapper; cst must
// be the command's own state (a fork), not the script's.
func (a *analyzer) addWrap(cst *state, r string, s Site, msg string, vars ...string) {
	msg += a.mayNote
	cst.wraps = append(cst.wraps[:len(cst.wraps):len(cst.wraps)], wrapNote{rule: r, site: s, msg: msg, vars: vars})
}

// reportWraps reports the wrappers a worker starts under; for a last
// command that is known to return (returns), only those that always count.
func (a *analyzer) reportWraps(ws []wrapNote, returns bool) {
	for _, w := range ws {
		if returns && !w.always {
			continue
		}
		a.wrapped(w)
	}
}

// wrapped records that a worker starts under the wrapper of w.
func (a *analyzer) wrapped(w wrapNote) {
	if a.once(factKey{3, w.site.Pos, w.rule, w.msg + "\x00" + strings.Join(w.vars, ","), 0}) {
		a.pass.Wrapped = fact(a.pass.Wrapped, Wrapper{Rule: w.rule, At: w.site, Message: w.msg, Variables: w.vars})
	}
}

// reportAlways reports the notes that count at any worker point (a
// shebang's options), for a child whose own end is handed to its caller.
func (a *analyzer) reportAlways(ws []wrapNote) {
	for _, w := range ws {
		if w.always {
			a.wrapped(w)
		}
	}
}
