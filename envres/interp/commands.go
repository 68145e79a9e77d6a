package interp

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/progs"
	"github.com/childproof/childproof/envres/internal/shape"
	"github.com/childproof/childproof/internal/wrapper"
)

// prefixAssign is a NAME=VALUE before a command, or an env NAME=VALUE.
type prefixAssign struct {
	name string
	v    expand.Value
	pos  syntax.Pos
}

func (a *analyzer) callExpr(st *state, fc *fileCtx, s *syntax.Stmt, c *syntax.CallExpr, mode callMode) {
	ev := a.eval(st, fc)
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			a.assignNode(st, fc, ev, as, false)
		}
		return
	}
	var pre []prefixAssign
	for _, as := range c.Assigns {
		if as.Name == nil {
			continue
		}
		v := expand.UnknownValue
		if as.Value != nil && as.Array == nil && as.Index == nil {
			v = ev.Word(as.Value).Val
		} else if as.Value == nil && as.Array == nil {
			v = expand.Lit("")
		}
		pre = append(pre, prefixAssign{name: as.Name.Value, v: v, pos: as.Pos()})
	}
	fs := ev.Fields(c.Args)
	a.checkPidfile(st, fc, s, fs)
	a.command(st, fc, s, fs, mode, pre)
}

// assignNode performs a NAME=VALUE assignment node.
func (a *analyzer) assignNode(st *state, fc *fileCtx, ev *evaluator, as *syntax.Assign, export bool) {
	if as.Name == nil {
		return
	}
	v := expand.Lit("")
	pid, self := false, false
	switch {
	case as.Array != nil || as.Index != nil:
		v = expand.UnknownValue
		a.noteArrayAssign(st, fc, as)
		old, _ := st.Get(as.Name.Value)
		defer a.literalArray(st, ev, as, old)
	case as.Value != nil:
		f := ev.Word(as.Value)
		v, pid, self = f.Val, f.Pid, f.Self == as.Name.Value && !as.Append
		v = crValue(fc, as.Value.End(), v)
	default:
		v = crValue(fc, as.End(), v)
	}
	if self {
		a.assignSelf(st, fc, as.Name.Value, v, export, as.Pos())
	} else {
		a.assign(st, fc, as.Name.Value, v, export, as.Pos(), as.Append)
	}
	st.MarkPid(as.Name.Value, pid)
	if pid {
		st.tagPid(as.Name.Value)
	}
}

// maxArrayElems bounds the elements of an array the analysis tracks
// (with maxValueLen, its size): a longer one is unknown.
const maxArrayElems = 64

// literalArray records the elements of an array assigned only literal
// words (CMD=(sudo -u app ./api), CMD+=(--port 80)), for a command held in
// it ("${CMD[@]}"); anything else makes the array unknown.
func (a *analyzer) literalArray(st *state, ev *evaluator, as *syntax.Assign, old varState) {
	vs, ok := st.Get(as.Name.Value)
	if !ok {
		return
	}
	var elems []string
	known := as.Array != nil && as.Index == nil
	if known && as.Append && !old.Words().IsArr {
		// Appended to an array known in part: its head stays.
		w := *vs.Words()
		w.Arr, w.IsArr, w.Head = nil, false, old.Words().Head
		st.Set(as.Name.Value, vs.WithWords(w))
		return
	}
	if known && as.Append {
		elems = append(elems, old.Words().Arr...)
	}
	var head []string // the known leading elements, when a later one is not
	if known {
		for _, el := range as.Array.Elems {
			if el.Index != nil || el.Value == nil {
				known = false
				break
			}
			if n := shape.ArrayParam(el.Value); n != "" {
				// CMD=(sudo "${CMD[@]}"): the old elements, spliced;
				// an array over maxArrayElems is unknown (doubling it
				// 24 times made 16 million elements).
				var from []string
				switch o, ok := st.Get(n); {
				case n == as.Name.Value && old.Words().IsArr:
					from = old.Words().Arr
				case n != as.Name.Value && ok && o.Words().IsArr:
					from = o.Words().Arr
				default:
					known = false
				}
				if !known || len(elems)+len(from) > maxArrayElems {
					known, head = false, elems
					break
				}
				elems = append(elems, from...)
				continue
			}
			f := ev.Word(el.Value)
			if !f.Known || len(elems) >= maxArrayElems {
				known, head = false, elems
				break
			}
			elems = append(elems, f.Str)
		}
	}
	if !known {
		elems = nil
	}
	w := *vs.Words()
	w.Arr, w.IsArr, w.Head = elems, known, nil
	if !known && len(head) > 0 {
		w.Head = head[:len(head):len(head)]
	}
	st.Set(as.Name.Value, vs.WithWords(w))
}

// crValue is v with the carriage return bash keeps when the word ends a
// CRLF line (X=1\r\n assigns "1\r").
func crValue(fc *fileCtx, end syntax.Pos, v expand.Value) expand.Value {
	if fc == nil || fc.crlfSrc == nil || !fc.crAt(end.Offset()) {
		return v
	}
	if v.Kind == expand.Literal && len(v.Str) < expand.MaxValueLen {
		return expand.Lit(v.Str + "\r")
	}
	return expand.UnknownValue
}

// assignSelf is X=${X:-d} (or X=$X): where X already has a value (known
// non-empty, or the caller's), the assignment keeps it, so what gave X
// that value stays the cause (the load before it, not this line).
func (a *analyzer) assignSelf(st *state, fc *fileCtx, name string, v expand.Value, export bool, pos syntax.Pos) {
	old, ok := st.Get(name)
	if !ok {
		old = expand.DefaultVar[event]()
	}
	a.assign(st, fc, name, v, export, pos, false)
	keeps := old.Val.Kind == expand.Orig || old.Val.Kind == expand.Literal && old.Val.Str != ""
	if !keeps || len(old.Origins) == 0 {
		return
	}
	ns, _ := st.Get(name)
	ns.Origins = old.Origins
	ns.LoadExp = ns.LoadExp || old.LoadExp
	st.Set(name, ns)
}

// assign sets a variable, recording where (or which load) set it.
func (a *analyzer) assign(st *state, fc *fileCtx, name string, v expand.Value, exportNow bool, pos syntax.Pos, appendOp bool) {
	old, ok := st.Get(name)
	if !ok {
		old = expand.DefaultVar[event]()
	}
	if appendOp {
		switch {
		case v.Kind == expand.Literal && v.Str == "" && old.Val.Kind != expand.Unset:
			v = old.Val // X+= appends nothing
		case old.Val.Kind == expand.Literal && v.Kind == expand.Literal && len(old.Val.Str)+len(v.Str) <= expand.MaxValueLen:
			v = expand.Lit(old.Val.Str + v.Str)
		case old.Val.Kind == expand.Unset:
		default:
			v = expand.UnknownValue
		}
	}
	if p := a.prot[name]; p != nil && p.known && v.Kind == expand.Literal && v.Str == p.value {
		// The override's own value: the same abstract value as the
		// caller's, so that paths that re-assign it merge cleanly.
		v = expand.Value{Kind: expand.Orig, Str: name}
	}
	fill := st.load != nil && st.load.fill != fillNone
	if fill && a.fillKeeps(old, st.load.fill) {
		return // a fill-only load leaves a name that has a value
	}
	ns := varState{Val: v, Exp: old.Exp}
	if exportNow || st.allexport {
		ns.Exp = expand.Yes
	}
	prot := a.prot[name]
	real, alias := a.aliases[name]
	var ev *event
	if st.load != nil {
		ev = st.load.ev
		st.loaded = true
		a.loaded.note(name, v)
		if st.load.exportAll {
			ns.Exp = expand.Yes
		}
		// A fill-only load overrides no caller export: no env-file-load.
		ns.LoadExp = ns.Exp == expand.Yes && !fill
	} else if prot != nil || alias || a.plan != nil {
		ev = a.newEvent(evAssign, a.siteAt(st, fc, pos), "")
	}
	// An assignment in the script to a name that is not protected is no
	// origin any finding reports (only loads and changes of protected
	// names are), and Plan is off: no event is made for it.
	if ev != nil {
		ns.Origins = []*event{ev}
	}
	if prot != nil && a.changes(prot, old.Val) && a.changes(prot, v) {
		// A change over a change: both are on the way to the worker, and
		// fixing the last must not be what shows the first.
		ns.Earlier = expand.JoinOrigins(old.Earlier, old.Origins)
	}
	if prot != nil {
		if ev.vals == nil {
			ev.vals = map[string]expand.Value{}
		}
		ev.vals[name] = v
	}
	st.Set(name, ns)
	if a.plan != nil {
		a.plan.assigned(name, ns, ev)
	}
	if alias {
		a.pass.AliasSets = fact(a.pass.AliasSets, AliasSet{At: ev.site, Name: name, Real: real})
	}
}

// changes reports whether a protected variable holding v at the worker
// would be a finding: not the override (or, for a required name, empty or
// unset).
func (a *analyzer) changes(p *protVar, v expand.Value) bool {
	switch v.Kind {
	case expand.Orig:
		return v.Str != p.name
	case expand.Literal:
		if p.override {
			return !(p.known && v.Str == p.value)
		}
		return v.Str == ""
	case expand.Unset:
		return true
	}
	return p.override
}

// AssignDefault is ${NAME:=value} (expand.Host).
func (a *analyzer) AssignDefault(c walkCtx, name string, v expand.Value, known bool, pos syntax.Pos) {
	if !known {
		v = expand.UnknownValue
	}
	a.assign(c.st, c.fc, name, v, false, pos, false)
}

func (a *analyzer) exportName(st *state, name string, on bool, s Site) {
	old, ok := st.Get(name)
	if !ok {
		old = expand.DefaultVar[event]()
	}
	if on {
		old.Exp = expand.Yes
		st.Set(name, old)
		return
	}
	old.Exp = expand.No
	old.LoadExp = false
	old.Origins = []*event{a.newEvent(evUnexport, s, "")}
	st.Set(name, old)
}

func (a *analyzer) unsetName(st *state, name string, s Site) {
	st.Set(name, varState{Val: expand.Value{Kind: expand.Unset}, Exp: expand.No, Origins: []*event{a.newEvent(evUnset, s, "")}})
	st.MarkPid(name, false)
}

// checkPidfile reports $! written to a file.
func (a *analyzer) checkPidfile(st *state, fc *fileCtx, s *syntax.Stmt, fs []expand.Field) {
	if s == nil {
		return
	}
	pid := false
	for _, f := range fs[1:] {
		if f.Pid {
			pid = true
		}
	}
	if !pid {
		return
	}
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			if r.Word == nil {
				continue
			}
			if w := r.Word.Lit(); strings.HasPrefix(w, "/dev/") || strings.HasPrefix(w, "&") {
				continue
			}
			a.pass.Pidfiles = fact(a.pass.Pidfiles, a.siteAt(st, fc, s.Pos()))
			return
		}
	}
	if len(fs) > 0 && fs[0].Known && fs[0].Str == "tee" {
		a.pass.Pidfiles = fact(a.pass.Pidfiles, a.siteAt(st, fc, s.Pos()))
	}
}

var builtins = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		".": true, "source": true, "eval": true, "export": true, "declare": true, "typeset": true, "local": true,
		"readonly": true, "unset": true, "set": true, "shift": true, "cd": true, "pushd": true, "popd": true,
		"wait": true, "exit": true, "return": true, "read": true, ":": true, "true": true, "false": true,
		"echo": true, "printf": true, "test": true, "[": true, "trap": true, "alias": true, "unalias": true,
		"shopt": true, "umask": true, "ulimit": true, "hash": true, "type": true, "getopts": true, "let": true,
		"kill": true, "break": true, "continue": true, "jobs": true, "disown": true, "mapfile": true,
		"readarray": true, "builtin": true, "command": true, "enable": true, "help": true, "times": true, "bind": true,
		"complete": true, "compgen": true, "fg": true, "bg": true, "suspend": true, "logout": true, "caller": true, "dirs": true,
	}
})

// cmdRun is one simple command being resolved by command: its words,
// how it is called and the environment it runs with, as its wrappers
// leave them.
type cmdRun struct {
	st  *state // the state the command is walked in
	cst *state // the environment the command runs with: st until a wrapper or prefix assignment changes it (fork)
	fc  *fileCtx
	s   *syntax.Stmt
	fs  []expand.Field // the words left once the wrappers so far are stripped
	// mode is how the command is called: exec and setsid -f change it.
	mode callMode
	pre  []prefixAssign
	// nohup: a nohup wrapper was stripped; forked: setsid -f sends the
	// launch to the background; first: no wrapper was stripped yet.
	nohup, forked, first bool
	startSite            Site // the command's first word, wrappers included: where a launch starts
}

// fork gives the command its own environment, once.
func (c *cmdRun) fork() {
	if c.cst == c.st {
		c.cst = c.st.fork()
	}
}

// command handles one simple command: its prefix assignments (in the
// command's own environment), the wrappers in front of it (unwrap), then
// the command itself (resolve) — a builtin, a function, a shell, a
// script or an external command.
func (a *analyzer) command(st *state, fc *fileCtx, s *syntax.Stmt, fs []expand.Field, mode callMode, pre []prefixAssign) {
	c := &cmdRun{st: st, cst: st, fc: fc, s: s, fs: fs, mode: mode, pre: pre, first: true}
	if len(pre) > 0 {
		c.fork()
		for _, p := range pre {
			a.assign(c.cst, fc, p.name, p.v, true, p.pos, false)
		}
	}
	defer c.forkedLaunch()
	if len(fs) > 0 && !fs[0].Known && a.mayNote == "" && a.commandAlts(st, fc, s, fs, mode, pre) {
		return
	}
	if len(fs) > 0 {
		c.startSite = a.siteAt(st, fc, fs[0].Pos)
	}
	if a.unwrap(c) || len(c.fs) == 0 {
		return
	}
	a.resolve(c)
}

// forkedLaunch moves the launch a setsid -f command made (st.launched)
// to the background launches (st.bg), marked forked.
func (c *cmdRun) forkedLaunch() {
	st := c.st
	if c.forked && st.launched != nil {
		st.launched.forked = true
		st.launched.before = st.lastCmd
		st.bg = append(st.bg[:len(st.bg):len(st.bg)], *st.launched)
		st.launched = nil
	}
}

// wrapStep is what a wrapper step made of the command's first word.
type wrapStep uint8

const (
	wrapNext wrapStep = iota // a wrapper, stripped: the next word is looked at
	wrapEnd                  // no wrapper: the word is the command itself
	wrapDone                 // the command is handled (or nothing is left to run)
)

// unwrap strips the wrappers in front of the command, one known word at
// a time (nextWrapper), recording what each does to the environment and
// to how the command is called. It reports true when that handled the
// command.
func (a *analyzer) unwrap(c *cmdRun) bool {
	for len(c.fs) > 0 && c.fs[0].Known {
		switch a.nextWrapper(c) {
		case wrapDone:
			return true
		case wrapEnd:
			return false
		}
		c.first = false
	}
	return false
}

// nextWrapper dispatches on the command word (its base name) to the step
// of its family: exec and the process wrappers (execWrapper,
// procWrapper), env and the user switches (envWrapper, sudoWrapper,
// suStep), the env-file loaders and package runners (loaderWrapper), and
// the activation runners (reportActivation: an Activation fact).
func (a *analyzer) nextWrapper(c *cmdRun) wrapStep {
	base := filepath.Base(c.fs[0].Str)
	switch base {
	case "exec":
		return a.execWrapper(c)
	case "command", "builtin":
		return a.procWrapper(c, base)
	case "env":
		var done bool
		c.fs, done = a.envWrapper(c.st, &c.cst, c.fc, c.fs, c.fork)
		if done {
			return wrapDone
		}
		return wrapNext
	case "sudo", "doas":
		c.fs = a.sudoWrapper(c.st, &c.cst, c.fc, c.fs, c.fork)
		return wrapNext
	case "su", "runuser":
		return a.suStep(c)
	case "dotenv", "dotenvx", "uv", "uvx", "pipx", "npx", "bunx", "npm", "poetry", "pnpm", "yarn", "bun", "env-cmd":
		return a.loaderWrapper(c, base)
	}
	if progs.IsPython(base) {
		if step := a.loaderWrapper(c, base); step != wrapEnd {
			return step // python -m dotenv run CMD
		}
	}
	first := ""
	if len(c.fs) > 1 && c.fs[1].Known {
		first = c.fs[1].Str
	}
	if wrapper.WrapsWith(base, first) {
		return a.procWrapper(c, base) // internal/wrapper's table (pyenv exec CMD too)
	}
	if mech, rest := progs.ActivationRunner(progArgs(c.fs)); mech != "" {
		a.reportActivation(a.siteAt(c.st, c.fc, c.fs[0].Pos), mech)
		c.fs = c.fs[rest:]
		return wrapNext
	}
	return wrapEnd
}

// execWrapper takes exec, as the first word only (after a wrapper it is
// the command, wrapEnd). exec -c records an EnvReset wrap (every
// protected variable dropped) and exec -l a LoginShell wrap, both in the
// command's environment; the command is then called as an exec
// (callExec). exec with redirections only is wrapDone.
func (a *analyzer) execWrapper(c *cmdRun) wrapStep {
	if !c.first {
		return wrapEnd
	}
	fs := c.fs
	args := make([]string, 0, len(fs)-1)
	for _, f := range fs[1:] {
		if !f.Known {
			break // an unknown word is the command
		}
		args = append(args, f.Str)
	}
	o, n := wrapper.ParseExecArgs(args)
	if o.Clear {
		c.fork()
		a.addWrap(c.cst, wrapper.EnvReset, a.siteAt(c.st, c.fc, fs[0].Pos), "exec -c runs the command with an empty environment: every protected variable is dropped", a.protNames()...)
		a.markReset(c.cst, nil)
	}
	if o.Login {
		c.fork()
		a.addWrap(c.cst, wrapper.LoginShell, a.siteAt(c.st, c.fc, fs[0].Pos), "exec -l starts the command as a login shell: profile files run before the worker")
	}
	c.fs = fs[1+n:]
	if len(c.fs) == 0 {
		return wrapDone // exec with redirections only
	}
	c.mode = callExec
	return wrapNext
}

// procWrapper takes the wrappers that change how the command's process
// runs: command and builtin (command -v and -V only print, wrapDone),
// nohup (recorded in c.nohup), setsid (-f or --fork makes a normal call
// a background launch, c.forked), setpriv (--reset-env records an
// EnvReset wrap in the command's environment) and the plain wrappers,
// whose own options stripWrapper skips.
func (a *analyzer) procWrapper(c *cmdRun, base string) wrapStep {
	fs := c.fs
	switch base {
	case "command", "builtin":
		if len(fs) > 1 && fs[1].Known && (fs[1].Str == "-v" || fs[1].Str == "-V") {
			return wrapDone
		}
		i := 1
		for i < len(fs) && fs[i].Known && fs[i].Str == "-p" {
			i++
		}
		c.fs = fs[i:]
	case "nohup":
		c.nohup = true
		c.fs = fs[1:]
	case "setsid":
		// setsid -f/--fork returns at once: a background launch.
		for _, o := range fs[1:] {
			if !o.Known || !strings.HasPrefix(o.Str, "-") {
				break
			}
			if o.Str == "-f" || o.Str == "--fork" || strings.HasPrefix(o.Str, "-") && !strings.HasPrefix(o.Str, "--") && strings.Contains(o.Str, "f") {
				if c.mode == callNormal {
					c.mode = callBackground
					c.forked = true
				}
			}
		}
		c.fs = stripWrapper("setsid", fs)
	case "setpriv":
		if slices.ContainsFunc(fs[1:], func(f expand.Field) bool { return f.Known && f.Str == "--reset-env" }) {
			c.fork()
			a.addWrap(c.cst, wrapper.EnvReset, a.siteAt(c.st, c.fc, fs[0].Pos), "setpriv --reset-env clears the environment but TERM and sets HOME, SHELL, USER, LOGNAME and PATH anew: protected variables are dropped", a.protNames()...)
			a.markReset(c.cst, nil)
		}
		c.fs = stripWrapper("setpriv", fs)
	default:
		if changed := wrapper.Changes(base); len(changed) > 0 {
			a.changedNames(c, base, changed)
		}
		c.fs = stripWrapper(base, fs)
	}
	return wrapNext
}

// changedNames records a wrapper that keeps the environment but sets some
// names anew (setuser: USER, HOME, UID): env-reset for a protected name
// among them, whose value becomes one lint cannot know.
func (a *analyzer) changedNames(c *cmdRun, base string, changed []string) {
	var lost []string
	for _, p := range a.protList {
		if slices.Contains(changed, p.name) {
			lost = append(lost, p.name)
		}
	}
	if len(lost) == 0 {
		return
	}
	c.fork()
	a.addWrap(c.cst, wrapper.EnvReset, a.siteAt(c.st, c.fc, c.fs[0].Pos), base+" keeps the environment but sets "+strings.Join(changed, ", ")+" anew: protected variables among them are changed", lost...)
	for _, n := range lost {
		c.cst.Set(n, varState{Val: expand.UnknownValue, Exp: expand.Yes})
	}
}

// suStep takes su and runuser (suWrapper records what the switch does to
// the environment). When suWrapper handled the whole command and it was
// exec'd, the background launches end and the path is dead.
func (a *analyzer) suStep(c *cmdRun) wrapStep {
	var done bool
	c.fs, done = a.suWrapper(c.st, &c.cst, c.fc, c.s, c.fs, c.mode, c.fork)
	if !done {
		return wrapNext
	}
	if c.mode == callExec {
		a.endBg(c.st)
		c.st.dead, c.st.execd = true, true
	}
	return wrapDone
}

// loaderWrapper takes the env-file loaders (dotenv, dotenvx, uv run
// --env-file: envLoaderLoad records the files' Load facts and their
// names in the command's environment) and the package runners (uv run,
// uvx, npx …: the command they run is looked at next). A word that is
// neither is the command itself (wrapEnd).
func (a *analyzer) loaderWrapper(c *cmdRun, base string) wrapStep {
	if base == "dotenv" || base == "dotenvx" || base == "uv" || base == "env-cmd" || progs.IsPython(base) {
		if l, ok := parseEnvLoader(c.fs); ok {
			c.fork()
			a.envLoaderLoad(c.st, c.cst, c.fc, c.fs, l)
			c.fs = l.rest
			return wrapNext
		}
	}
	rest, tool, ok := progs.PackageRunner(progArgs(c.fs))
	if !ok {
		if ps, ok := a.pkgScriptOf(c.cst.Cwd, c.fs); ok {
			a.pkgScriptRun(c, ps) // npm run dev: package.json's command
			return wrapDone
		}
		return wrapEnd
	}
	c.fs = append([]expand.Field(nil), c.fs[rest:]...) // uv run CMD: CMD, which may be a loader
	if tool != "" {
		c.fs[0].Str = tool // npx dotenv-cli: dotenv
	}
	return wrapNext
}

// resolve handles the command once its wrappers are stripped: a
// variable's alternatives (commandAlts, each a branch), a node
// --env-file load (Load facts), an activation command (an Activation
// fact), an unresolvable word (exec'd: an Unchecked fact; then run as an
// external command), a function (callFunc; in the background, st.launched
// at the command's start), a builtin, and else a launch (launchCommand).
func (a *analyzer) resolve(c *cmdRun) {
	st, fs := c.st, c.fs
	if !fs[0].Known && c.cst == st && !c.first && a.mayNote == "" && a.commandAlts(st, c.fc, c.s, fs, c.mode, c.pre) {
		return // exec $SUDO …: each value the word may have
	}
	name := fs[0].Str
	if l, ok := parseEnvLoader(fs); ok && (name == "node" || name == "nodejs") {
		c.fork()
		a.envLoaderLoad(st, c.cst, c.fc, fs, l)
	}
	if mech := progs.ActivationCmd(progArgs(fs)); mech != "" && st.funcs.get(name) == nil {
		a.reportActivation(a.siteAt(st, c.fc, fs[0].Pos), mech)
		return
	}
	if !fs[0].Known {
		if c.mode == callExec {
			a.uncheckedAt(a.siteAt(st, c.fc, fs[0].Pos), "the command exec'd cannot be resolved statically: if it is a script, what it does to the environment is not checked")
		}
		a.external(st, c.cst, c.fc, fs, c.mode, c.nohup)
		a.fixLaunch(st, c.startSite)
		return
	}
	if fd := st.funcs.get(name); fd != nil && c.mode != callExec {
		a.callFunc(st, c.fc, fd, fs)
		if c.mode == callBackground {
			st.launched = &bgLaunch{site: c.startSite, nohup: c.nohup}
		}
		return
	}
	if builtins()[name] && c.mode != callExec {
		a.builtin(st, c.fc, c.s, fs)
		return
	}
	a.launchCommand(c)
}

// launchCommand runs a command that is no builtin or function: a shell
// (shellCall), a script named by a path (its shebang's flags in
// a.shebangWraps, then runChild), or an external command; a background
// launch it makes is placed at the command's start (fixLaunch).
func (a *analyzer) launchCommand(c *cmdRun) {
	st, cst, fc, fs := c.st, c.cst, c.fc, c.fs
	name := fs[0].Str
	if wrapper.IsShell(filepath.Base(name)) {
		a.shellCall(st, cst, fc, c.s, fs, c.mode, c.nohup)
		a.fixLaunch(st, c.startSite)
		return
	}
	if strings.Contains(name, "/") {
		abs := expand.JoinPath(cst.Cwd, name)
		if abs != "" && a.isShellScript(abs) {
			a.shebangWraps = a.shebangFlags(st, fc, fs[0].Pos, abs)
			a.runChild(st, cst, fc, fs[0].Pos, abs, name, nil, fs[1:], c.mode, c.nohup, false)
			a.fixLaunch(st, c.startSite)
			return
		}
	}
	if j, ok := progs.HeredocJob(progArgs(fs)); ok && a.heredocJobRun(c, j) {
		return
	}
	a.external(st, cst, fc, fs, c.mode, c.nohup)
	a.fixLaunch(st, c.startSite)
}

// commandAlts walks a command whose first word is a variable known to
// hold one of a few literal values on the paths that reach it ($SUDO set
// to sudo in one branch and "" in another): each value as its own branch,
// wrapper findings worded "may" (mayNote). It reports false when the word
// is no such variable or none of its values is a word.
func (a *analyzer) commandAlts(st *state, fc *fileCtx, s *syntax.Stmt, fs []expand.Field, mode callMode, pre []prefixAssign) bool {
	if fs[0].Word == nil {
		return false
	}
	var alts [][]string
	name, quoted := expand.ScalarWord(fs[0].Word)
	label := "$" + name
	if name != "" {
		vs, ok := st.Get(name)
		if !ok || vs.Words().Alts == nil || !slices.ContainsFunc(vs.Words().Alts, func(s string) bool { return strings.TrimSpace(s) != "" }) {
			return false
		}
		for _, alt := range vs.Words().Alts {
			if quoted {
				alts = append(alts, []string{alt})
			} else {
				alts = append(alts, strings.Fields(alt))
			}
		}
	} else if name = shape.ArrayParam(fs[0].Word); name != "" {
		label = "${" + name + "[@]}"
		vs, ok := st.Get(name)
		if !ok || vs.Words().ArrAlts == nil {
			return false
		}
		alts = vs.Words().ArrAlts
	} else {
		return false
	}
	var branches []*state
	for _, ws := range alts {
		b := st.fork()
		var words []expand.Field
		for _, w := range ws {
			words = append(words, expand.LitField(w, fs[0].Pos))
		}
		alt := strings.Join(ws, " ")
		rest := append(words, fs[1:]...)
		if len(rest) > 0 {
			if strings.TrimSpace(alt) != "" {
				a.mayNote = " (only where " + label + " is " + strconv.Quote(alt) + ": it is set so on some paths, so the command may run under it)"
			}
			a.command(b, fc, s, rest, mode, pre)
			a.mayNote = ""
		}
		branches = append(branches, b)
	}
	st.merge(branches...)
	return true
}

// fixLaunch reports a background launch at the start of its command line
// (nohup, setsid, …) rather than at the worker's name.
func (a *analyzer) fixLaunch(st *state, s Site) {
	if st.launched != nil && s.File != "" {
		st.launched.site = s
	}
}

// stripWrapper drops a transparent command wrapper (internal/wrapper's
// table) and its options. A word not known statically does not stop the
// option reader (the manual's grammar does): one whose first part is a
// literal "-…" is an option (--reuid=$REUID), any other is a value the
// option before it takes or, in the command's place, the command.
func stripWrapper(name string, fs []expand.Field) []expand.Field {
	args := make([]string, 0, len(fs)-1)
	for _, f := range fs[1:] {
		switch {
		case f.Known:
			args = append(args, f.Str)
		case optionLike(f):
			args = append(args, f.Str+expand.UnknownMark)
		default:
			args = append(args, expand.UnknownMark)
		}
	}
	n, ok := wrapper.Skip(name, args)
	if !ok {
		n = 0
	}
	return fs[min(1+n, len(fs)):]
}

// optionLike reports whether a word not known statically starts with a
// literal "-" (--reuid=$REUID, "--user=${U}"): an option, whatever its
// value.
func optionLike(f expand.Field) bool {
	if f.Word == nil || len(f.Word.Parts) == 0 || !strings.HasPrefix(f.Str, "-") {
		return false
	}
	p := f.Word.Parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) > 0 {
		p = dq.Parts[0]
	}
	switch p := p.(type) {
	case *syntax.Lit:
		return strings.HasPrefix(p.Value, "-")
	case *syntax.SglQuoted:
		return strings.HasPrefix(p.Value, "-")
	}
	return false
}

// external is a command that is not a shell, a script, a builtin or a
// function: in exec or background position, it is a worker.
func (a *analyzer) external(st, cst *state, fc *fileCtx, fs []expand.Field, mode callMode, nohup bool) {
	ref := a.cmdRef(st, fc, fs)
	ref.mode, ref.nohup = mode, nohup
	ref.wraps, ref.returns = cst.wraps, progs.Returns(progArgs(fs))
	switch mode {
	case callExec:
		a.workerPoint(cst, ref)
		if st.fgChild && len(a.handed) > 0 {
			// The exec'd command ends a child run in the foreground: it
			// returns to the caller, whose end decides (as a last command).
			if len(cst.wraps) > 0 {
				a.handed[len(a.handed)-1] = &cmdRef{site: ref.site, wraps: cst.wraps, returns: ref.returns, wrapOnly: true}
			}
			a.reportAlways(cst.wraps) // a shebang's options count: the child launched
		} else {
			a.reportWraps(cst.wraps, false)
		}
		a.helperBg(st)
		st.dead, st.execd = true, true
	case callBackground:
		a.workerPoint(cst, ref)
		// Its wrappers count if it is the worker: known when the
		// process ends or waits for it (endBg), not when it execs the
		// worker afterwards (helperBg).
		st.launched = &bgLaunch{site: ref.site, nohup: nohup, wraps: cst.wraps}
	default:
		if fs[0].Known && progs.Trivial(filepath.Base(fs[0].Str)) {
			return
		}
		st.lastCmd = ref
		if a.plan != nil {
			a.plan.ran(ref)
		}
		switch {
		case progs.Detaches(progArgs(fs)):
			// It forks its worker and returns (progs.Detaches): the worker
			// starts here, under the command's wrappers.
			a.workerPoint(cst, ref)
			a.reportWraps(cst.wraps, false)
		case cst != st && cst.Vars != st.Vars:
			// NAME=VALUE cmd: the command runs with the assignment.
			a.workerPoint(cst, ref)
		}
	}
}

func (a *analyzer) cmdRef(st *state, fc *fileCtx, fs []expand.Field) *cmdRef {
	ref := &cmdRef{site: a.siteAt(st, fc, fs[0].Pos), fc: fc}
	if fs[0].Known {
		ref.name = filepath.Base(fs[0].Str)
	}
	if a.plan != nil {
		ref.fs = fs // Plan reads them (and gives no fields back)
	}
	if fs[0].Known && strings.HasPrefix(fs[0].Str, "-") {
		// --bind 0.0.0.0:8000 on a line of its own (a continuation
		// without its backslash): no program, nothing binds.
		return ref
	}
	for _, f := range fs[1:] {
		switch {
		case f.Known:
			if progs.AllInterfaces(f.Str) {
				ref.binds = append(ref.binds, Bind{At: a.siteAt(st, fc, f.Pos)})
			}
		case f.Word != nil && !f.Splat && !expand.AtWord(f.Word):
			// 0.0.0.0:$PORT, ${HOST:-0.0.0.0}:8000: the address part
			// may be known where the whole word is not.
			if s, _ := a.bindText(st, f.Word, false); progs.AllInterfaces(s) {
				ref.binds = append(ref.binds, Bind{At: a.siteAt(st, fc, f.Pos)})
			} else if s, by := a.bindText(st, f.Word, true); progs.AllInterfaces(s) && len(by) > 0 {
				ref.binds = append(ref.binds, Bind{At: a.siteAt(st, fc, f.Pos), Default: by[0]})
			}
		}
	}
	return ref
}

// envWrapper handles env [-i] [-u NAME] [NAME=VALUE]… [$(cat .env)] CMD:
// unknownArg takes the words not known statically, option the options and
// assignments (wrapper.NextEnvArg, one effect each) and finish reports
// -i. It returns the command env runs, or true when there is none.
func (a *analyzer) envWrapper(st *state, cst **state, fc *fileCtx, fs []expand.Field, fork func()) ([]expand.Field, bool) {
	r := &envRun{a: a, st: st, cst: cst, fc: fc, fork: fork, site: a.siteAt(st, fc, fs[0].Pos), passed: map[string]bool{}}
	defer r.finish()
	i := 1
	for i < len(fs) {
		if !fs[i].Known {
			if !r.unknownArg(fs[i]) {
				break
			}
			i++
			continue
		}
		var next int
		var cmd bool
		if fs, next, cmd = r.option(fs, i); cmd {
			return fs[i:], false
		}
		i = next
	}
	if i >= len(fs) {
		return nil, true
	}
	return fs[i:], false
}

// envRun is one envWrapper: the states (the caller's st, the command's
// *cst), env's site, whether -i reset the environment (and the protected
// names before it), whether "--" ended the options, the names env passes
// and NextEnvArg's reused buffers.
type envRun struct {
	a        *analyzer
	st       *state
	cst      **state
	fc       *fileCtx
	fork     func()
	site     Site
	reset    bool
	afterEnd bool
	snap     map[string]varState // protected names before -i
	passed   map[string]bool
	strs     [2]string
	effects  []wrapper.EnvArg
}

// finish reports env -i (EnvReset, markReset) when it drops protected
// names: env -i NAME="$NAME" … passes names on, so only the protected
// names it does not pass are dropped.
func (r *envRun) finish() {
	if !r.reset {
		return
	}
	var lost []string
	for _, p := range r.a.protList {
		if !r.passed[p.name] {
			lost = append(lost, p.name)
		}
	}
	if len(lost) > 0 || len(r.a.protList) == 0 {
		r.a.addWrap(*r.cst, wrapper.EnvReset, r.site, "env -i starts the command with an empty environment: protected variables are dropped", lost...)
		r.a.markReset(*r.cst, r.snap)
	}
}

// unknownArg takes a word not known statically: NAME="$NAME" assigns (and
// passes) NAME with the value it has, $(cat .env) records the loads of its
// substitutions (substLoads). Any other such word is the command: false.
func (r *envRun) unknownArg(x expand.Field) bool {
	if n := assignName(x); n != "" {
		// NAME="$NAME": a value not known statically.
		r.fork()
		v := expand.UnknownValue
		if f := valueAfterEq(r.a.eval(r.st, r.fc), x.Word, n); f != nil {
			v = f.Val
		}
		r.a.assign(*r.cst, r.fc, n, v, true, x.Pos, false)
		r.passed[n] = true
		return true
	}
	if len(x.Substs()) > 0 {
		r.fork()
		r.a.substLoads(*r.cst, r.fc, r.site, x, true)
		return true
	}
	return false
}

// option takes the known word fs[i] (and the value of its option) through
// wrapper.NextEnvArg and applies each effect: -S splices its words into fs
// in its place, the command ends env's words (cmd), the others go to
// effect. It returns fs and the index of the next word.
func (r *envRun) option(fs []expand.Field, i int) (_ []expand.Field, next int, cmd bool) {
	x := fs[i]
	if !r.afterEnd && i+1 < len(fs) && !fs[i+1].Known {
		r.strs[1] = "" // a value not known statically
	} else if i+1 < len(fs) {
		r.strs[1] = fs[i+1].Str
	}
	r.strs[0] = x.Str
	args := r.strs[:min(2, len(fs)-i)]
	r.effects, next = wrapper.NextEnvArg(args, 0, r.afterEnd, r.effects[:0])
	next += i
	for _, e := range r.effects {
		at := fs[i+e.Arg]
		switch e.Kind {
		case wrapper.EnvSplit:
			if at.Known {
				fs = splitEnvString(fs, next, at, e.Value)
			}
		case wrapper.EnvCommand:
			return fs, next, true
		default:
			r.effect(x, at, e)
		}
	}
	return fs, next, false
}

// splitEnvString is fs with the words of env -S STRING (at) inserted at
// next: they are env's arguments in its place.
func splitEnvString(fs []expand.Field, next int, at expand.Field, s string) []expand.Field {
	words := wrapper.SplitEnvString(s)
	split := make([]expand.Field, 0, len(words)+len(fs)-next)
	for _, w := range words {
		split = append(split, expand.Field{Str: w, Known: true, Pos: at.Pos, Val: expand.Lit(w)})
	}
	return append(append(append([]expand.Field(nil), fs[:next]...), split...), fs[next:]...)
}

// effect applies one of env's effects to the command's state: -i
// (ignore), -u NAME (unsetName), -C DIR (the directory), "--" and
// NAME=VALUE (assigned and passed on).
func (r *envRun) effect(x, at expand.Field, e wrapper.EnvArg) {
	switch e.Kind {
	case wrapper.EnvIgnore:
		r.ignore()
	case wrapper.EnvUnset:
		if at.Known {
			r.fork()
			r.a.unsetName(*r.cst, e.Value, r.a.siteAt(r.st, r.fc, at.Pos))
		}
	case wrapper.EnvChdir:
		r.fork()
		if at.Known {
			(*r.cst).Cwd = expand.JoinPath((*r.cst).Cwd, e.Value)
		} else {
			(*r.cst).Cwd = ""
		}
	case wrapper.EnvEnd:
		r.afterEnd = true
	case wrapper.EnvSet:
		r.fork()
		n := e.Value
		v := expand.Lit(x.Str[len(n)+1:])
		if f := valueAfterEq(r.a.eval(r.st, r.fc), x.Word, n); f != nil {
			v = f.Val
		}
		r.a.assign(*r.cst, r.fc, n, v, true, x.Pos, false)
		r.passed[n] = true
	}
}

// ignore applies env -i: the first one snapshots the protected names
// (protSnapshot) and unsets every exported variable; only what env itself
// passes is left.
func (r *envRun) ignore() {
	r.fork()
	if !r.reset {
		r.snap = r.a.protSnapshot(*r.cst)
		for name, v := range (*r.cst).Vars.All() {
			if v.Exp != expand.No {
				(*r.cst).Set(name, varState{Val: expand.Value{Kind: expand.Unset}, Exp: expand.No})
			}
		}
	}
	r.reset = true
}

// assignName returns NAME when a word starts with a literal NAME=.
func assignName(f expand.Field) string {
	if f.Word == nil || len(f.Word.Parts) == 0 {
		return ""
	}
	l, ok := f.Word.Parts[0].(*syntax.Lit)
	if !ok {
		return ""
	}
	i := strings.IndexByte(l.Value, '=')
	if i <= 0 || !validName(l.Value[:i]) {
		return ""
	}
	return l.Value[:i]
}

// valueAfterEq evaluates the value part of a NAME=VALUE word when it is a
// single expansion, to keep "the caller's value".
func valueAfterEq(ev *evaluator, w *syntax.Word, name string) *expand.Field {
	if w == nil || len(w.Parts) != 2 {
		return nil
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || l.Value != name+"=" {
		return nil
	}
	f := ev.Word(&syntax.Word{Parts: w.Parts[1:]})
	return &f
}

// sudoWrapper handles sudo's options; without -E/--preserve-env it resets
// the environment.
func (a *analyzer) sudoWrapper(st *state, cst **state, fc *fileCtx, fs []expand.Field, fork func()) []expand.Field {
	site := a.siteAt(st, fc, fs[0].Pos)
	args := make([]string, len(fs)-1)
	for k, f := range fs[1:] {
		switch n := assignName(f); {
		case !f.Known && n != "":
			args[k] = n + "=" // NAME=$x: an assignment whatever its value
		case !f.Known, n == "" && !strings.HasPrefix(f.Str, "-") && strings.Contains(f.Str, "=") && !validName(f.Str[:strings.IndexByte(f.Str, '=')]):
			// "" is the command: a word not known statically, or one
			// with an '=' that names no variable.
		default:
			args[k] = f.Str
		}
	}
	o, n := wrapper.ParseSudoArgs(args)
	preserve, login, list, hasList := o.Preserve, o.Login, o.List, o.HasList
	var assigns []expand.Field
	for _, k := range o.Assigns {
		assigns = append(assigns, fs[1+k])
	}
	i := min(1+n, len(fs))
	if login {
		fork()
		a.addWrap(*cst, wrapper.LoginShell, site, "sudo -i runs the target user's login shell: profile files run before the worker and the environment is reset")
		a.markReset(*cst, nil)
	}
	if o.Shell && i >= len(fs) {
		fork()
		a.addWrap(*cst, wrapper.InteractiveShell, site, "sudo -s with no command runs an interactive shell: rc files run")
	}
	// sudo NAME=VALUE … passes NAME on, like --preserve-env=NAME.
	for _, f := range assigns {
		list = append(list, assignName(f))
	}
	if !preserve && !login {
		var lost []string
		for _, p := range a.protList {
			if !slices.Contains(list, p.name) {
				lost = append(lost, p.name)
			}
		}
		switch {
		case len(lost) == 0 && len(a.protList) > 0:
		case hasList:
			fork()
			a.addWrap(*cst, wrapper.EnvReset, site, "sudo --preserve-env=LIST keeps only the listed names: other protected variables are dropped", lost...)
			a.markReset(*cst, nil)
		default:
			fork()
			a.addWrap(*cst, wrapper.EnvReset, site, "sudo resets the environment (env_reset) unless -E or --preserve-env is given: protected variables are dropped", lost...)
			a.markReset(*cst, nil)
		}
	}
	ev := a.eval(st, fc)
	for _, f := range assigns {
		fork()
		n := assignName(f)
		v := expand.Lit(strings.TrimPrefix(f.Str, n+"="))
		if !f.Known {
			v = expand.UnknownValue
		}
		if vf := valueAfterEq(ev, f.Word, n); vf != nil {
			v = vf.Val
		}
		a.assign(*cst, fc, n, v, true, f.Pos, false)
	}
	return fs[i:]
}

// suWrapper handles su and runuser. It reports done when it analysed the
// command itself (su -c STRING).
func (a *analyzer) suWrapper(st *state, cst **state, fc *fileCtx, s *syntax.Stmt, fs []expand.Field, mode callMode, fork func()) ([]expand.Field, bool) {
	site := a.siteAt(st, fc, fs[0].Pos)
	base := filepath.Base(fs[0].Str)
	args := make([]string, len(fs)-1)
	for k, f := range fs[1:] {
		if f.Known {
			args[k] = f.Str // an unknown word stays "": reading stops there
		}
	}
	o, _ := wrapper.ParseSuArgs(base, args)
	login, preserve := o.Login, o.Preserve
	var cmd *expand.Field
	var direct []expand.Field
	if o.Command >= 0 {
		c := fs[1+o.Command]
		if o.CommandPrefix != "" {
			c.Str = strings.TrimPrefix(c.Str, o.CommandPrefix)
			c.Word = nil // positions: the string starts inside the word
		}
		cmd = &c
	}
	if o.Direct >= 0 {
		direct = fs[1+o.Direct:]
	}
	switch {
	case login:
		fork()
		a.addWrap(*cst, wrapper.LoginShell, site, base+" with a login flag starts a login shell: the environment is reset and profile files run before the worker")
		a.markReset(*cst, nil)
	case !preserve:
		// util-linux: without a login flag the environment is kept,
		// except HOME, SHELL, USER and LOGNAME, which are set anew.
		var lost []string
		for _, p := range a.protList {
			if slices.Contains(wrapper.SuChanged, p.name) {
				lost = append(lost, p.name)
			}
		}
		if len(lost) > 0 {
			fork()
			a.addWrap(*cst, wrapper.EnvReset, site, base+" without a login flag keeps the environment but sets HOME, SHELL, USER and LOGNAME anew: protected variables among them are changed", lost...)
			for _, n := range lost {
				(*cst).Set(n, varState{Val: expand.UnknownValue, Exp: expand.Yes})
			}
		}
	}
	if direct != nil {
		return direct, false
	}
	if cmd != nil {
		a.runEmbedded(st, *cst, fc, *cmd, nil, mode, false, false)
		if !cmd.Known && mode == callNormal && st.lastCmd != nil {
			// su - "$U" -c "$CMD" run and waited for: whether the string
			// is the worker or a step that returns (an installer's
			// run-as-user helper) is not known, so it is not judged as the
			// worker's wrapper; dynamic-source says it is not checked.
			st.lastCmd.returns = true
		}
	}
	return nil, true
}

// shellCall handles bash/sh/… with their options: -l, -i, -c STRING, or a
// script file.
func (a *analyzer) shellCall(st, cst *state, fc *fileCtx, s *syntax.Stmt, fs []expand.Field, mode callMode, nohup bool) {
	args := make([]string, len(fs)-1)
	for k, f := range fs[1:] {
		if f.Known {
			args[k] = f.Str // an unknown word stays "": an operand
		}
	}
	opts, n := wrapper.ParseShellArgs(args)
	login, inter, cmdMode, allexp := opts.Login, opts.Interactive, opts.Command, opts.AllExport
	i := 1 + n
	site := a.siteAt(st, fc, fs[0].Pos)
	sh := filepath.Base(fs[0].Str)
	if login || inter {
		// A copy of the command's state that only adds the notes: the
		// variables are the caller's (cst.vars is not written through it).
		c := *cst
		c.wraps = cst.wraps[:len(cst.wraps):len(cst.wraps)]
		cst = &c
	}
	if login {
		a.addWrap(cst, wrapper.LoginShell, site, sh+" -l starts a login shell: /etc/profile and ~/.profile run before the worker and may reset or re-source protected variables")
	}
	if inter {
		a.addWrap(cst, wrapper.InteractiveShell, site, sh+" -i starts an interactive shell: ~/.bashrc (or $ENV) runs before the worker and may change protected variables")
	}
	rest := fs[min(i, len(fs)):]
	if cmdMode {
		if len(rest) == 0 {
			return
		}
		a.runEmbedded(st, cst, fc, rest[0], rest[1:], mode, nohup, allexp)
		return
	}
	if len(rest) == 0 {
		// bash <<'EOF' … EOF: the here-document is the script.
		if hd := shape.Heredoc(s); hd != nil {
			ev := a.eval(st, fc)
			body := ev.Word(hd)
			if body.Known {
				body.Word = nil // positions: the body starts a line
				a.runEmbedded(st, cst, fc, body, nil, mode, nohup, allexp)
				return
			}
		}
		a.external(st, cst, fc, fs, mode, nohup)
		return
	}
	if !rest[0].Known {
		a.uncheckedAt(a.siteAt(st, fc, rest[0].Pos), "the script run by "+sh+" cannot be resolved statically: what it does to the environment is not checked")
		a.external(st, cst, fc, fs, mode, nohup)
		return
	}
	abs := expand.JoinPath(cst.Cwd, rest[0].Str)
	if abs == "" || !a.isFile(abs) {
		a.uncheckedAt(a.siteAt(st, fc, rest[0].Pos), "the script run by "+sh+" cannot be found from here ("+rest[0].Str+"): what it does to the environment is not checked")
		a.external(st, cst, fc, fs, mode, nohup)
		return
	}
	a.runChild(st, cst, fc, fs[0].Pos, abs, rest[0].Str, nil, rest[1:], mode, nohup, allexp)
}

// childSrc is an embedded script (bash -c STRING).
type childSrc struct {
	file *syntax.File
	fc   *fileCtx
}

// runEmbedded analyses a bash -c / su -c string as a child process.
func (a *analyzer) runEmbedded(st, cst *state, fc *fileCtx, str expand.Field, args []expand.Field, mode callMode, nohup, allexp bool) {
	if !str.Known {
		a.uncheckedAt(a.siteAt(st, fc, str.Pos), "the command string cannot be resolved statically: what it does to the environment is not checked")
		a.external(st, cst, fc, []expand.Field{str}, mode, nohup)
		return
	}
	efc := a.embeddedCtx(fc, str)
	f, err := a.parser.Parse(fc.name, []byte(str.Str), fc.lang)
	if err != nil {
		pe, _ := err.(*ParseError)
		msg := "the command string does not parse"
		if pe != nil {
			msg += ": " + pe.Msg
		}
		a.uncheckedAt(a.siteAt(st, fc, str.Pos), msg)
		return
	}
	a.runChild(st, cst, fc, str.Pos, "", "", &childSrc{file: f, fc: efc}, args, mode, nohup, allexp)
}

// embeddedCtx maps positions inside a string word to the file.
func (a *analyzer) embeddedCtx(fc *fileCtx, str expand.Field) *fileCtx {
	l, c := fc.pos(str.Pos)
	if str.Word != nil && len(str.Word.Parts) == 1 {
		switch str.Word.Parts[0].(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			c++
		}
	}
	return &fileCtx{name: fc.name, abs: fc.abs, embedded: true, line: l, col: c, lang: fc.lang}
}

// runChild analyses a script run as a new process (bash F, ./F, bash -c):
// it inherits only exported variables.
func (a *analyzer) runChild(st, cst *state, fc *fileCtx, callPos syntax.Pos, abs, given string, emb *childSrc, args []expand.Field, mode callMode, nohup, allexp bool) {
	callSite := a.siteAt(st, fc, callPos)
	shebang := a.shebangWraps
	a.shebangWraps = nil
	detached := a.detached // a job or remote script: its end is its own
	a.detached = false
	var handed *cmdRef // a foreground child's last command, for its wrappers
	finish := func() {
		switch mode {
		case callExec:
			a.helperBg(st)
			st.dead, st.execd = true, true
		case callBackground:
			st.launched = &bgLaunch{site: callSite, nohup: nohup}
		default:
			if !detached { // sbatch, ssh, docker exec: the submitting command returns
				st.lastCmd = handed
			}
		}
	}
	if a.depth >= maxDepth || (abs != "" && a.onStack(abs)) {
		finish()
		return
	}
	var cfc *fileCtx
	var stmts []*syntax.Stmt
	if emb != nil {
		cfc, stmts = emb.fc, emb.file.Stmts
	} else {
		pf := a.parse(abs)
		if pf.err != nil {
			if a.cfg.KeepGoing {
				// Whole-repository mode: the file is a finding of its
				// own; the caller goes on as after an unknown command.
				a.reportParseError(pf.err, append(st.chain[:len(st.chain):len(st.chain)], Pos{File: callSite.File, Line: callSite.Line}))
				finish()
				return
			}
			if a.fatal == nil {
				a.fatal = pf.err
			}
			a.stopped = true
			return
		}
		cfc = pf.ctx()
		stmts = pf.file.Stmts
	}
	ch := &state{Scope: expand.Scope[event]{Vars: expand.NewLayer[event](nil), Cwd: cst.Cwd, Args: args}, reset: cst.reset, preReset: cst.preReset, allexport: allexp,
		loaded: cst.loaded, pending: cst.pending[:len(cst.pending):len(cst.pending)],
		wraps: append(cst.wraps[:len(cst.wraps):len(cst.wraps)], shebang...), fgChild: mode == callNormal && !detached}
	for k, v := range cst.Vars.All() {
		if v.Exp != expand.No {
			ch.Set(k, v)
		} else if a.prot[k] != nil {
			ch.Set(k, v)
		}
	}
	ch.chain = append(st.chain[:len(st.chain):len(st.chain)], Pos{File: callSite.File, Line: callSite.Line})
	if emb != nil {
		ch.Dollar0 = "bash"
		if len(args) > 0 {
			ch.Dollar0 = args[0].Str
			ch.Args = args[1:]
		}
		ch.Source = st.Source
		if cfc.name == fc.name {
			ch.chain = st.chain // same file: the link is the finding itself
		}
	} else {
		ch.Dollar0, ch.Source = expand.DotSlash(given), expand.DotSlash(given)
		a.stack = append(a.stack, abs)
		defer func() { a.stack = a.stack[:len(a.stack)-1] }()
	}
	saveSite, saveName, saveBuf := a.funcSite, a.funcName, a.funcSiteBuf
	a.funcSite, a.funcName = nil, ""
	a.handed = append(a.handed, nil)
	defer func() { a.handed = a.handed[:len(a.handed)-1] }()
	a.depth++
	a.stmts(ch, cfc, stmts)
	a.depth--
	a.processEnd(ch, cfc, true)
	if l := ch.lastCmd; l != nil && !ch.dead && len(l.wraps) > 0 {
		handed = &cmdRef{site: l.site, wraps: l.wraps, returns: l.returns, wrapOnly: true}
	}
	if h := a.handed[len(a.handed)-1]; h != nil {
		handed = h // the child ended in an exec
	}
	a.funcSite, a.funcName, a.funcSiteBuf = saveSite, saveName, saveBuf
	finish()
}

func (a *analyzer) onStack(abs string) bool {
	for _, s := range a.stack {
		if s == abs {
			return true
		}
	}
	return false
}

// callFunc walks a function's body where it is called.
func (a *analyzer) callFunc(st *state, fc *fileCtx, fd *funcDef, fs []expand.Field) {
	if a.depth >= maxDepth {
		return
	}
	for _, c := range a.calls {
		if c == fd.body {
			return // recursion
		}
	}
	site := a.siteAt(st, fc, fs[0].Pos)
	saveArgs, saveChain := st.Args, st.chain
	st.Args = fs[1:]
	st.chain = append(st.chain[:len(st.chain):len(st.chain)], Pos{File: site.File, Line: site.Line})
	outer := a.funcSite == nil
	if outer {
		a.funcSiteBuf = site
		a.funcSite, a.funcName = &a.funcSiteBuf, fd.body.name
	}
	a.calls = append(a.calls, fd.body)
	a.frames = append(a.frames, nil) // made by the first local
	a.depth++
	a.stmt(st, fd.body.fc, fd.body.stmt)
	a.depth--
	frame := a.frames[len(a.frames)-1]
	a.frames = a.frames[:len(a.frames)-1]
	a.calls = a.calls[:len(a.calls)-1]
	if !st.dead {
		for name, old := range frame {
			if old == nil {
				st.Set(name, expand.DefaultVar[event]())
			} else {
				st.Set(name, *old)
			}
		}
	}
	st.returning = false
	st.Args, st.chain = saveArgs, saveChain
	if outer {
		a.funcSite, a.funcName = nil, ""
	}
}
