package interp

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
)

// declArg is one operand of export/declare/local/readonly.
type declArg struct {
	name   string
	v      expand.Value
	hasVal bool
	append bool
	pos    syntax.Pos
	flag   string        // an option such as -x, +x, -n
	dyn    *expand.Field // an operand with a command substitution (export $(…))
	pid    bool
	self   bool // NAME=${NAME:-d}: keeps a value NAME has
}

func (a *analyzer) declClause(st *state, fc *fileCtx, s *syntax.Stmt, c *syntax.DeclClause) {
	ev := a.eval(st, fc)
	var buf [4]declArg // most clauses have one or two operands
	args := buf[:0]
	for _, as := range c.Args {
		switch {
		case as.Naked && as.Name != nil:
			args = append(args, declArg{name: as.Name.Value, pos: as.Pos()})
		case as.Naked && as.Value != nil:
			f := ev.Word(as.Value)
			args = append(args, a.declFromField(ev, f))
		case as.Name != nil:
			d := declArg{name: as.Name.Value, hasVal: true, append: as.Append, pos: as.Pos(), v: expand.Lit("")}
			if as.Array != nil || as.Index != nil {
				d.v = expand.UnknownValue
			} else if as.Value != nil {
				f := ev.Word(as.Value)
				d.v, d.pid, d.self = f.Val, f.Pid, f.Self == as.Name.Value && !as.Append
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
func (a *analyzer) declFromField(ev *evaluator, f expand.Field) declArg {
	if !f.Known {
		if len(f.Substs()) > 0 {
			ff := f
			return declArg{dyn: &ff, pos: f.Pos}
		}
		if i := strings.IndexByte(f.Str, '='); i > 0 && validName(f.Str[:i]) {
			// NAME=$X as a plain word (export under sh, where the parser
			// makes no declaration): an assignment all the same (POSIX
			// 2024, dash ≥ 0.5.11 do not split it), so NAME=$NAME keeps
			// the caller's value, as under bash.
			d := declArg{name: f.Str[:i], hasVal: true, v: expand.UnknownValue, pos: f.Pos, pid: f.Pid}
			if vf := valueAfterEq(ev, f.Word, d.name); vf != nil {
				d.v, d.self = vf.Val, vf.Self == d.name
			}
			return d
		}
		return declArg{pos: f.Pos}
	}
	if strings.HasPrefix(f.Str, "-") || strings.HasPrefix(f.Str, "+") {
		return declArg{flag: f.Str, pos: f.Pos}
	}
	if i := strings.IndexByte(f.Str, '='); i > 0 {
		n := f.Str[:i]
		app := strings.HasSuffix(n, "+")
		n = strings.TrimSuffix(n, "+")
		if validName(n) {
			d := declArg{name: n, hasVal: true, v: expand.Lit(f.Str[i+1:]), pos: f.Pos, append: app, pid: f.Pid}
			if vf := valueAfterEq(ev, f.Word, n); vf != nil {
				d.v, d.self = vf.Val, vf.Self == n && !app
			}
			return d
		}
		return declArg{pos: f.Pos}
	}
	if validName(f.Str) {
		return declArg{name: f.Str, pos: f.Pos}
	}
	return declArg{pos: f.Pos}
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
				if old, ok := st.Get(d.name); ok {
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
				st.MarkPid(d.name, d.pid)
				if d.pid {
					st.tagPid(d.name)
				}
			} else if export {
				a.exportName(st, d.name, true, site)
				if real, ok := a.aliases[d.name]; ok {
					if vs, _ := st.Get(d.name); vs.Val.Kind != expand.Unset {
						a.pass.AliasSets = fact(a.pass.AliasSets, AliasSet{At: a.siteAt(st, fc, d.pos), Name: d.name, Real: real})
					}
				}
			}
		}
	}
}

// builtin runs a shell builtin, one step per family: sourcing and eval,
// declarations (export, declare, typeset, local, readonly), unset, set,
// shift and the directory builtins (expand.Scope), the flow builtins (flowBuiltin)
// and the builtins that assign what they read (readBuiltin, printfBuiltin).
func (a *analyzer) builtin(st *state, fc *fileCtx, s *syntax.Stmt, fs []expand.Field) {
	name := fs[0].Str
	ops := fs[1:]
	switch name {
	case ".", "source":
		a.sourceCmd(st, fc, s, a.siteAt(st, fc, fs[0].Pos), ops)
	case "eval":
		a.evalCmd(st, fc, a.siteAt(st, fc, fs[0].Pos), ops)
	case "export", "declare", "typeset", "local", "readonly":
		ev := a.eval(st, fc)
		var args []declArg
		for _, f := range ops {
			args = append(args, a.declFromField(ev, f))
		}
		a.declare(st, fc, name, fs[0].Pos, args)
	case "unset":
		a.unsetBuiltin(st, fc, ops)
	case "set":
		a.setCmd(st, ops)
	case "shift":
		st.Shift(ops)
	case "cd", "pushd", "popd":
		st.Chdir(name, ops)
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
func (a *analyzer) unsetBuiltin(st *state, fc *fileCtx, ops []expand.Field) {
	fn := false
	for _, f := range ops {
		if !f.Known {
			continue
		}
		switch {
		case f.Str == "-f":
			fn = true
		case f.Str == "-v" || f.Str == "-n":
		case strings.HasPrefix(f.Str, "-"):
		case !fn && validName(f.Str):
			a.unsetName(st, f.Str, a.siteAt(st, fc, f.Pos))
		}
	}
}

// flowBuiltin runs wait (forgets the background jobs), exit (records the
// end of the process, processEnd, and ends the path) and return (marks the
// function returning).
func (a *analyzer) flowBuiltin(st *state, fc *fileCtx, name string, ops []expand.Field) {
	switch name {
	case "wait":
		a.waitBg(st)
	case "exit":
		// exit 1 (or any known non-zero status) is a failure path: no
		// worker runs there.
		failure := len(ops) > 0 && ops[0].Known && ops[0].Str != "0"
		a.processEnd(st, fc, !st.subshell && !failure)
		st.dead = true
	case "return":
		st.returning = true
	}
}

// readBuiltin runs read, mapfile, readarray and getopts: the array read -a,
// mapfile and readarray fill is noted (noteFileArray), and every name they
// assign gets an unknown value (assign).
func (a *analyzer) readBuiltin(st *state, fc *fileCtx, s *syntax.Stmt, name string, ops []expand.Field) {
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
		if !f.Known {
			continue
		}
		if strings.HasPrefix(f.Str, "-") {
			if len(f.Str) == 2 && strings.ContainsRune("adinNptuCcOs", rune(f.Str[1])) {
				skip = true
			}
			continue
		}
		if name == "getopts" && i == 0 {
			continue
		}
		if validName(f.Str) {
			a.assign(st, fc, f.Str, expand.UnknownValue, false, f.Pos, false)
		}
	}
}

// readArray is the array read (after -a), mapfile or readarray (its
// operand, MAPFILE by default) fills; "" for a read without -a.
func readArray(name string, ops []expand.Field) string {
	arr := ""
	if name != "read" {
		arr = "MAPFILE"
	}
	for i, f := range ops {
		switch {
		case !f.Known:
		case name == "read" && (f.Str == "-a" || f.Str == "-ra" || f.Str == "-ar") && i+1 < len(ops) && ops[i+1].Known:
			arr = ops[i+1].Str
		case name != "read" && validName(f.Str) && (i == 0 || !ops[i-1].Known || len(ops[i-1].Str) != 2 || !strings.ContainsRune("dnOsuCc", rune(ops[i-1].Str[1]))):
			arr = f.Str
		}
	}
	return arr
}

// printfBuiltin runs printf -v NAME: the name gets an unknown value
// (assign).
func (a *analyzer) printfBuiltin(st *state, fc *fileCtx, ops []expand.Field) {
	for i := 0; i+1 < len(ops); i++ {
		if ops[i].Known && ops[i].Str == "-v" && ops[i+1].Known && validName(ops[i+1].Str) {
			a.assign(st, fc, ops[i+1].Str, expand.UnknownValue, false, ops[i+1].Pos, false)
		}
	}
}

// setCmd handles set -a/+a, -o/+o allexport and set -- ARGS.
func (a *analyzer) setCmd(st *state, ops []expand.Field) {
	for i := 0; i < len(ops); i++ {
		f := ops[i]
		if !f.Known {
			return
		}
		o := f.Str
		switch {
		case o == "--":
			st.Args = append([]expand.Field(nil), ops[i+1:]...)
			return
		case o == "-o" || o == "+o":
			if i+1 < len(ops) && ops[i+1].Known && ops[i+1].Str == "allexport" {
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
				if ops[i+1].Known && ops[i+1].Str == "allexport" {
					st.allexport = o[0] == '-'
				}
				i++
			}
		default:
			st.Args = append([]expand.Field(nil), ops[i:]...)
			return
		}
	}
}
