package interp

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// declArg is one operand of export/declare/local/readonly.
type declArg struct {
	name   string
	v      value
	hasVal bool
	append bool
	pos    syntax.Pos
	flag   string // an option such as -x, +x, -n
	dyn    *field // an operand with a command substitution (export $(…))
	pid    bool
	self   bool // NAME=${NAME:-d}: keeps a value NAME has
}

func (a *analyzer) declClause(st *state, fc *fileCtx, s *syntax.Stmt, c *syntax.DeclClause) {
	ev := &evaluator{a: a, st: st, fc: fc}
	var buf [4]declArg // most clauses have one or two operands
	args := buf[:0]
	for _, as := range c.Args {
		switch {
		case as.Naked && as.Name != nil:
			args = append(args, declArg{name: as.Name.Value, pos: as.Pos()})
		case as.Naked && as.Value != nil:
			f := ev.word(as.Value)
			args = append(args, a.declFromField(ev, f))
		case as.Name != nil:
			d := declArg{name: as.Name.Value, hasVal: true, append: as.Append, pos: as.Pos(), v: lit("")}
			if as.Array != nil || as.Index != nil {
				d.v = unknownValue
			} else if as.Value != nil {
				f := ev.word(as.Value)
				d.v, d.pid, d.self = f.v, f.pid, f.self == as.Name.Value && !as.Append
				d.v = crValue(fc, as.Value.End(), d.v)
			} else {
				d.v = crValue(fc, as.End(), d.v)
			}
			args = append(args, d)
		}
	}
	a.declare(st, fc, c.Variant.Value, c.Variant.Pos(), args)
}

// declFromField turns a word operand into a declArg.
func (a *analyzer) declFromField(ev *evaluator, f field) declArg {
	if !f.known {
		if len(f.substs()) > 0 {
			ff := f
			return declArg{dyn: &ff, pos: f.pos}
		}
		if i := strings.IndexByte(f.s, '='); i > 0 && validName(f.s[:i]) {
			// NAME=$X as a plain word (export under sh, where the parser
			// makes no declaration): an assignment all the same (POSIX
			// 2024, dash ≥ 0.5.11 do not split it), so NAME=$NAME keeps
			// the caller's value, as under bash.
			d := declArg{name: f.s[:i], hasVal: true, v: unknownValue, pos: f.pos, pid: f.pid}
			if vf := valueAfterEq(ev, f.word, d.name); vf != nil {
				d.v, d.self = vf.v, vf.self == d.name
			}
			return d
		}
		return declArg{pos: f.pos}
	}
	if strings.HasPrefix(f.s, "-") || strings.HasPrefix(f.s, "+") {
		return declArg{flag: f.s, pos: f.pos}
	}
	if i := strings.IndexByte(f.s, '='); i > 0 {
		n := f.s[:i]
		app := strings.HasSuffix(n, "+")
		n = strings.TrimSuffix(n, "+")
		if validName(n) {
			d := declArg{name: n, hasVal: true, v: lit(f.s[i+1:]), pos: f.pos, append: app, pid: f.pid}
			if vf := valueAfterEq(ev, f.word, n); vf != nil {
				d.v, d.self = vf.v, vf.self == n && !app
			}
			return d
		}
		return declArg{pos: f.pos}
	}
	if validName(f.s) {
		return declArg{name: f.s, pos: f.pos}
	}
	return declArg{pos: f.pos}
}

// declare runs export, declare, typeset, local and readonly.
func (a *analyzer) declare(st *state, fc *fileCtx, variant string, vpos syntax.Pos, args []declArg) {
	export, unexport, funcs := variant == "export", false, false
	if variant == "nameref" {
		return
	}
	for _, d := range args {
		if d.flag == "" {
			continue
		}
		on := d.flag[0] == '-'
		for _, ch := range d.flag[1:] {
			switch ch {
			case 'x':
				if variant != "export" {
					export, unexport = on, !on
				}
			case 'n':
				if variant == "export" && on {
					unexport, export = true, false
				}
			case 'f', 'F':
				funcs = true
			case 'p':
			}
		}
	}
	if funcs {
		return
	}
	site := a.siteAt(st, fc, vpos)
	for _, d := range args {
		switch {
		case d.dyn != nil:
			if export || variant == "declare" || variant == "typeset" {
				a.substLoads(st, fc, site, *d.dyn, export)
			}
		case d.name == "":
		case variant == "local" && len(a.frames) > 0:
			frame := a.frames[len(a.frames)-1]
			if frame == nil {
				frame = map[string]*varState{}
				a.frames[len(a.frames)-1] = frame
			}
			if _, seen := frame[d.name]; !seen {
				if old, ok := st.get(d.name); ok {
					o := old
					frame[d.name] = &o
				} else {
					frame[d.name] = nil
				}
			}
			fallthrough
		default:
			if unexport {
				if d.hasVal {
					a.assign(st, fc, d.name, d.v, false, d.pos, d.append)
				}
				a.exportName(st, d.name, false, a.siteAt(st, fc, d.pos))
				continue
			}
			if d.hasVal {
				if d.self {
					a.assignSelf(st, fc, d.name, d.v, export, d.pos)
				} else {
					a.assign(st, fc, d.name, d.v, export, d.pos, d.append)
				}
				st.markPid(d.name, d.pid)
				if d.pid {
					st.tagPid(d.name)
				}
			} else if export {
				a.exportName(st, d.name, true, site)
				if real, ok := a.aliases[d.name]; ok {
					if vs, _ := st.get(d.name); vs.v.k != vUnset {
						a.pass.AliasSets = fact(a.pass.AliasSets, AliasSet{At: a.siteAt(st, fc, d.pos), Name: d.name, Real: real})
					}
				}
			}
		}
	}
}

// builtin runs a shell builtin, one step per family: sourcing and eval,
// declarations (export, declare, typeset, local, readonly), unset, set,
// shift, the directory builtins (dirBuiltin), the flow builtins (flowBuiltin)
// and the builtins that assign what they read (readBuiltin, printfBuiltin).
func (a *analyzer) builtin(st *state, fc *fileCtx, s *syntax.Stmt, fs []field) {
	name := fs[0].s
	ops := fs[1:]
	switch name {
	case ".", "source":
		a.sourceCmd(st, fc, s, a.siteAt(st, fc, fs[0].pos), ops)
	case "eval":
		a.evalCmd(st, fc, a.siteAt(st, fc, fs[0].pos), ops)
	case "export", "declare", "typeset", "local", "readonly":
		ev := &evaluator{a: a, st: st, fc: fc}
		var args []declArg
		for _, f := range ops {
			args = append(args, a.declFromField(ev, f))
		}
		a.declare(st, fc, name, fs[0].pos, args)
	case "unset":
		a.unsetBuiltin(st, fc, ops)
	case "set":
		a.setCmd(st, ops)
	case "shift":
		shiftBuiltin(st, ops)
	case "cd", "pushd", "popd":
		dirBuiltin(st, name, ops)
	case "wait", "exit", "return":
		a.flowBuiltin(st, fc, name, ops)
	case "read", "mapfile", "readarray", "getopts":
		a.readBuiltin(st, fc, s, name, ops)
	case "printf":
		a.printfBuiltin(st, fc, ops)
	case "kill", "trap":
		if c, ok := s.Cmd.(*syntax.CallExpr); ok && len(c.Args) == len(fs) && c.Args[0].Lit() == name {
			if name == "kill" {
				a.killBuiltin(st, c)
			} else {
				a.trapBuiltin(st, c)
			}
		}
	}
}

// unsetBuiltin runs unset [-v|-n] NAME...: each known valid name is unset
// (unsetName records the unset of a protected name); after -f the names
// are functions and nothing is recorded.
func (a *analyzer) unsetBuiltin(st *state, fc *fileCtx, ops []field) {
	fn := false
	for _, f := range ops {
		if !f.known {
			continue
		}
		switch {
		case f.s == "-f":
			fn = true
		case f.s == "-v" || f.s == "-n":
		case strings.HasPrefix(f.s, "-"):
		case !fn && validName(f.s):
			a.unsetName(st, f.s, a.siteAt(st, fc, f.pos))
		}
	}
}

// shiftBuiltin runs shift [N] on the positional parameters, when the ones
// it drops are known (shifting past the end leaves none).
func shiftBuiltin(st *state, ops []field) {
	n := 1
	if len(ops) > 0 && ops[0].known {
		if v, err := strconv.Atoi(ops[0].s); err == nil {
			n = v
		}
	}
	if !argsKnown(st.args[:min(max(n, 0), len(st.args))]) {
		return
	}
	if n <= len(st.args) && n >= 0 {
		st.args = st.args[n:]
	} else {
		st.args = nil
	}
}

// dirBuiltin runs cd and pushd (the first operand, after the options, is
// joined to the directory; none, an unknown one or "-" makes it unknown) and
// popd (the directory becomes unknown).
func dirBuiltin(st *state, name string, ops []field) {
	if name == "popd" {
		st.cwd = ""
		return
	}
	var dir *field
	for i := range ops {
		if ops[i].known && strings.HasPrefix(ops[i].s, "-") && ops[i].s != "-" {
			continue
		}
		dir = &ops[i]
		break
	}
	switch {
	case dir == nil || !dir.known || dir.s == "-":
		st.cwd = ""
	default:
		st.cwd = joinPath(st.cwd, dir.s)
	}
}

// flowBuiltin runs wait (forgets the background jobs), exit (records the
// end of the process, processEnd, and ends the path) and return (marks the
// function returning).
func (a *analyzer) flowBuiltin(st *state, fc *fileCtx, name string, ops []field) {
	switch name {
	case "wait":
		a.waitBg(st)
	case "exit":
		// exit 1 (or any known non-zero status) is a failure path: no
		// worker runs there.
		failure := len(ops) > 0 && ops[0].known && ops[0].s != "0"
		a.processEnd(st, fc, !st.subshell && !failure)
		st.dead = true
	case "return":
		st.returning = true
	}
}

// readBuiltin runs read, mapfile, readarray and getopts: the array read -a,
// mapfile and readarray fill is noted (noteFileArray), and every name they
// assign gets an unknown value (assign).
func (a *analyzer) readBuiltin(st *state, fc *fileCtx, s *syntax.Stmt, name string, ops []field) {
	if name != "getopts" {
		if arr := readArray(name, ops); arr != "" {
			a.noteFileArray(st, fc, s, arr)
		}
	}
	skip := false
	for i, f := range ops {
		if skip {
			skip = false
			continue
		}
		if !f.known {
			continue
		}
		if strings.HasPrefix(f.s, "-") {
			if len(f.s) == 2 && strings.ContainsRune("adinNptuCcOs", rune(f.s[1])) {
				skip = true
			}
			continue
		}
		if name == "getopts" && i == 0 {
			continue
		}
		if validName(f.s) {
			a.assign(st, fc, f.s, unknownValue, false, f.pos, false)
		}
	}
}

// readArray is the array read (after -a), mapfile or readarray (its
// operand, MAPFILE by default) fills; "" for a read without -a.
func readArray(name string, ops []field) string {
	arr := ""
	if name != "read" {
		arr = "MAPFILE"
	}
	for i, f := range ops {
		switch {
		case !f.known:
		case name == "read" && (f.s == "-a" || f.s == "-ra" || f.s == "-ar") && i+1 < len(ops) && ops[i+1].known:
			arr = ops[i+1].s
		case name != "read" && validName(f.s) && (i == 0 || !ops[i-1].known || len(ops[i-1].s) != 2 || !strings.ContainsRune("dnOsuCc", rune(ops[i-1].s[1]))):
			arr = f.s
		}
	}
	return arr
}

// printfBuiltin runs printf -v NAME: the name gets an unknown value
// (assign).
func (a *analyzer) printfBuiltin(st *state, fc *fileCtx, ops []field) {
	for i := 0; i+1 < len(ops); i++ {
		if ops[i].known && ops[i].s == "-v" && ops[i+1].known && validName(ops[i+1].s) {
			a.assign(st, fc, ops[i+1].s, unknownValue, false, ops[i+1].pos, false)
		}
	}
}

// setCmd handles set -a/+a, -o/+o allexport and set -- ARGS.
func (a *analyzer) setCmd(st *state, ops []field) {
	for i := 0; i < len(ops); i++ {
		f := ops[i]
		if !f.known {
			return
		}
		o := f.s
		switch {
		case o == "--":
			st.args = append([]field(nil), ops[i+1:]...)
			return
		case o == "-o" || o == "+o":
			if i+1 < len(ops) && ops[i+1].known && ops[i+1].s == "allexport" {
				st.allexport = o == "-o"
			}
			i++
		case len(o) > 1 && (o[0] == '-' || o[0] == '+'):
			for _, ch := range o[1:] {
				if ch == 'a' {
					st.allexport = o[0] == '-'
				}
			}
			if strings.HasSuffix(o, "o") && i+1 < len(ops) {
				if ops[i+1].known && ops[i+1].s == "allexport" {
					st.allexport = o[0] == '-'
				}
				i++
			}
		default:
			st.args = append([]field(nil), ops[i:]...)
			return
		}
	}
}
