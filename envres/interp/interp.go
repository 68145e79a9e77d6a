package interp

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/progs"
)

// The analysis is a flow-sensitive abstract interpretation over the AST
// (see docs/lint.md): every path is walked once, branches are forked and
// merged, subshells are forked and dropped, functions are walked where they
// are called, and exec ends a path.

type callMode uint8

const (
	callNormal callMode = iota
	callExec
	callBackground
)

func (a *analyzer) stmts(st *state, fc *fileCtx, list []*syntax.Stmt) {
	for _, s := range list {
		if st.dead || st.returning || !a.tick() {
			return
		}
		a.stmt(st, fc, s)
	}
}

func (a *analyzer) stmt(st *state, fc *fileCtx, s *syntax.Stmt) {
	defer a.releaseFields(a.markFields())
	if len(s.Redirs) > 0 {
		a.noteWritten(st, s)
	}
	if s.Background || s.Coprocess {
		sub := st.fork()
		sub.subshell = true
		sub.launched = nil
		sub.bg = nil
		sub.execd = false
		a.cmd(sub, fc, s, callBackground)
		if _, simple := s.Cmd.(*syntax.CallExpr); !simple {
			a.bgJob(sub, st.lastCmd, fc, s)
		}
		if sub.launched != nil {
			b := *sub.launched
			b.before = st.lastCmd
			st.bg = append(st.bg[:len(st.bg):len(st.bg)], b)
		}
		a.endBg(sub)
		return
	}
	a.cmd(st, fc, s, callNormal)
}

func (a *analyzer) cmd(st *state, fc *fileCtx, s *syntax.Stmt, mode callMode) {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		a.callExpr(st, fc, s, c, mode)
	case *syntax.DeclClause:
		a.declClause(st, fc, s, c)
	case *syntax.Block:
		a.stmts(st, fc, c.Stmts)
	case *syntax.Subshell:
		sub := st.fork()
		sub.subshell = true
		sub.bg = nil
		sub.execd = false
		a.stmts(sub, fc, c.Stmts)
		// What it left running in the background outlives it: a worker
		// or not as this process ends (( srv & ) at the end), a helper
		// when it execs its worker next.
		var orphans []bgLaunch
		if !sub.dead {
			for _, b := range sub.bg {
				b.orphan = true
				orphans = append(orphans, b)
			}
			sub.bg = nil
		}
		if mode == callBackground {
			a.bgJob(sub, st.lastCmd, fc, s)
			st.launched = sub.launched
		}
		a.processEnd(sub, fc, false)
		if len(orphans) > 0 {
			st.bg = joinBg(st.bg, orphans)
		}
	case *syntax.IfClause:
		a.ifClause(st, fc, c)
	case *syntax.WhileClause:
		a.whileClause(st, fc, s, c)
	case *syntax.ForClause:
		a.forClause(st, fc, c)
	case *syntax.CaseClause:
		a.caseClause(st, fc, c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			a.stmt(st, fc, c.X)
			if st.dead || st.returning {
				return
			}
			if ok, known := a.condStatus(st, fc, c.X); known {
				if ok == (c.Op == syntax.AndStmt) {
					a.stmt(st, fc, c.Y)
				}
				return
			}
			y := st.fork()
			a.stmt(y, fc, c.Y)
			st.merge(y, st.fork())
		default: // pipes: every part runs in a subshell
			for _, part := range []*syntax.Stmt{c.X, c.Y} {
				sub := st.fork()
				sub.subshell = true
				sub.bg = nil
				a.stmt(sub, fc, part)
				if sub.lastCmd != nil && sub.lastCmd != st.lastCmd {
					st.lastCmd = sub.lastCmd
				}
				a.endBg(sub)
			}
		}
	case *syntax.FuncDecl:
		if c.Name != nil && c.Body != nil {
			st.defineFunc(c.Name.Value, &funcDef{body: &bodyRef{stmt: c.Body, fc: fc, name: c.Name.Value}})
		}
	case *syntax.TimeClause:
		if c.Stmt != nil {
			a.stmt(st, fc, c.Stmt)
		}
	case *syntax.CoprocClause:
		if c.Stmt != nil {
			sub := st.fork()
			sub.subshell = true
			a.stmt(sub, fc, c.Stmt)
		}
	}
}

// condStatus reports the exit status of a condition when it is known
// statically: true, false, :, and [ / test / [[ ]] with -n, -z, = and !=
// over known words. A protected variable the launcher sets to a non-empty
// value is non-empty ([ -z "$X" ] && export X=… does not run).
func (a *analyzer) condStatus(st *state, fc *fileCtx, s *syntax.Stmt) (ok, known bool) {
	if s.Background || len(s.Redirs) > 0 {
		return false, false
	}
	ok, known = a.condCmd(st, fc, s.Cmd)
	if s.Negated {
		ok = !ok
	}
	return ok, known
}

func (a *analyzer) condCmd(st *state, fc *fileCtx, cmd syntax.Command) (ok, known bool) {
	ev := a.eval(st, fc)
	// operand evaluates a test operand: its string, and whether it is
	// known to be empty or not.
	type operand struct {
		s        string
		known    bool
		nonEmpty bool // known non-empty even when the string is not known
	}
	eval := func(w *syntax.Word) operand {
		f := ev.Word(w)
		o := operand{s: f.Str, known: f.Known, nonEmpty: f.Known && f.Str != ""}
		if f.Val.Kind == expand.Orig && len(w.Parts) == 1 {
			if p := a.prot[f.Val.Str]; p != nil && p.known {
				// Compared only, never shown.
				o.s, o.known, o.nonEmpty = p.value, true, p.value != ""
			} else if p != nil && !p.known {
				o.nonEmpty = true
			}
		}
		return o
	}
	test := func(args []*syntax.Word) (bool, bool) {
		switch len(args) {
		case 1:
			o := eval(args[0])
			if o.known || o.nonEmpty {
				return o.nonEmpty, true
			}
		case 2:
			op := args[0].Lit()
			o := eval(args[1])
			if op != "-n" && op != "-z" || !o.known && !o.nonEmpty {
				return false, false
			}
			return o.nonEmpty == (op == "-n"), true
		case 3:
			op := args[1].Lit()
			if op != "=" && op != "==" && op != "!=" {
				return false, false
			}
			x, y := eval(args[0]), eval(args[2])
			if !x.known || !y.known {
				return false, false
			}
			return (x.s == y.s) == (op != "!="), true
		}
		return false, false
	}
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return false, false
		}
		switch c.Args[0].Lit() {
		case "true", ":":
			return len(c.Args) == 1, len(c.Args) == 1
		case "false":
			return false, len(c.Args) == 1
		case "test":
			return test(c.Args[1:])
		case "[":
			if n := len(c.Args); n >= 2 && c.Args[n-1].Lit() == "]" {
				return test(c.Args[1 : n-1])
			}
		}
	case *syntax.TestClause:
		switch x := c.X.(type) {
		case *syntax.Word:
			return test([]*syntax.Word{x})
		case *syntax.UnaryTest:
			w, isWord := x.X.(*syntax.Word)
			if !isWord || x.Op != syntax.TsNempStr && x.Op != syntax.TsEmpStr {
				return false, false
			}
			op := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: x.Op.String()}}}
			return test([]*syntax.Word{op, w})
		}
	}
	return false, false
}

func (a *analyzer) ifClause(st *state, fc *fileCtx, c *syntax.IfClause) {
	a.stmts(st, fc, c.Cond)
	if st.dead || st.returning {
		return
	}
	if len(c.Cond) == 1 {
		if ok, known := a.condStatus(st, fc, c.Cond[0]); known {
			switch {
			case ok:
				a.stmts(st, fc, c.Then)
			case c.Else == nil:
			case !c.Else.ThenPos.IsValid():
				a.stmts(st, fc, c.Else.Then)
			default:
				a.ifClause(st, fc, c.Else)
			}
			return
		}
	}
	th := st.fork()
	a.stmts(th, fc, c.Then)
	el := st.fork()
	if c.Else != nil {
		if !c.Else.ThenPos.IsValid() { // plain else
			a.stmts(el, fc, c.Else.Then)
		} else {
			a.ifClause(el, fc, c.Else)
		}
	}
	st.merge(th, el)
}

func (a *analyzer) whileClause(st *state, fc *fileCtx, s *syntax.Stmt, c *syntax.WhileClause) {
	a.whileReadLoad(st, fc, s, c)
	a.stmts(st, fc, c.Cond)
	if st.dead || st.returning {
		return
	}
	body := st.fork()
	a.stmts(body, fc, c.Do)
	body.returning = body.returning && !body.dead
	st.merge(body, st.fork())
}

func (a *analyzer) forClause(st *state, fc *fileCtx, c *syntax.ForClause) {
	wi, ok := c.Loop.(*syntax.WordIter)
	if ok && wi.InPos.IsValid() {
		a.forLoad(st, fc, c, wi)
	}
	if ok {
		ev := a.eval(st, fc)
		var items []expand.Field
		if wi.InPos.IsValid() {
			items = ev.Fields(wi.Items)
			for i, it := range items {
				if expand.Globbable(it) {
					// Expand from here on, into a slice of its own.
					out := append([]expand.Field(nil), items[:i]...)
					for _, it := range items[i:] {
						out = append(out, expand.Glob(st.Cwd, it)...)
					}
					items = out
					break
				}
			}
		} else {
			items = st.Args
		}
		allKnown := len(items) <= maxLoopItems
		for _, it := range items {
			if !it.Known {
				allKnown = false
			}
		}
		if allKnown {
			// Walk every iteration in order: precise for short literal lists.
			for _, it := range items {
				if st.dead || st.returning {
					return
				}
				a.assign(st, fc, wi.Name.Value, it.Val, false, wi.Name.Pos(), false)
				a.stmts(st, fc, c.Do)
			}
			return
		}
		body := st.fork()
		a.assign(body, fc, wi.Name.Value, expand.UnknownValue, false, wi.Name.Pos(), false)
		a.stmts(body, fc, c.Do)
		st.merge(body, st.fork())
		return
	}
	body := st.fork()
	a.stmts(body, fc, c.Do)
	st.merge(body, st.fork())
}

func (a *analyzer) caseClause(st *state, fc *fileCtx, c *syntax.CaseClause) {
	ev := a.eval(st, fc)
	w := ev.Word(c.Word)
	if w.Known {
		// Take the first item whose pattern matches a known word.
		for i, it := range c.Items {
			matched, certain := false, true
			for _, p := range it.Patterns {
				pat, known := ev.PatternWord(p, nil)
				if !known {
					certain = false
					continue
				}
				if expand.ShellMatch(pat, w.Str) {
					matched = true
					break
				}
			}
			if matched {
				a.stmts(st, fc, it.Stmts)
				// ;& and ;;& fall into the next items: walk them too.
				for j := i; j < len(c.Items)-1 && c.Items[j].Op != syntax.Break; j++ {
					a.stmts(st, fc, c.Items[j+1].Stmts)
				}
				return
			}
			if !certain {
				break
			}
		}
		allKnown := true
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				if !ev.Word(p).Known {
					allKnown = false
				}
			}
		}
		if allKnown {
			return // no item matches
		}
	}
	branches := make([]*state, 0, len(c.Items)+1)
	for _, it := range c.Items {
		b := st.fork()
		a.stmts(b, fc, it.Stmts)
		branches = append(branches, b)
	}
	branches = append(branches, st.fork())
	st.merge(branches...)
}

// processEnd is the end of a shell process along a path: a script's end is
// a worker point when it ran an external command in the foreground (the
// last one ran with this environment), and every background launch not
// waited for is reported.
func (a *analyzer) processEnd(st *state, fc *fileCtx, script bool) {
	if st.dead {
		return
	}
	if script && st.lastCmd != nil {
		if !st.lastCmd.wrapOnly {
			a.workerPoint(st, st.lastCmd)
		}
		if !st.fgChild {
			a.reportWraps(st.lastCmd.wraps, st.lastCmd.returns)
		} else {
			a.reportAlways(st.lastCmd.wraps)
		}
	}
	a.endBg(st)
}

// endBg reports the background launches of a process that ends without
// exec'ing a worker: each may be the worker, started under its wrappers.
func (a *analyzer) endBg(st *state) {
	for _, b := range st.bg {
		// A program run in the foreground after it, that stays (neither
		// known to return nor a keep-alive such as tail -f or sleep), is
		// the worker: the launch is a helper.
		helper := st.lastCmd != nil && st.lastCmd != b.before && !st.lastCmd.returns && !st.lastCmd.wrapOnly && !progs.KeepAlive(st.lastCmd.name)
		if !b.managed {
			a.pass.Background = fact(a.pass.Background, Background{At: b.site, Nohup: b.nohup, Forked: b.forked, Helper: helper})
		}
		a.reportWraps(b.wraps, false)
	}
	st.bg = nil
}

// bgJob is the end of a list, group or subshell run in the background
// (cd d && ./srv &, ( … ) &) in its state job: a program it exec'd, or
// ran last in the foreground (not before, the caller's last command) and
// that stays, runs in the background job, as its worker, launched at s.
func (a *analyzer) bgJob(job *state, before *cmdRef, fc *fileCtx, s *syntax.Stmt) {
	if job.launched == nil && job.execd {
		// ( cd d && exec ./srv ) &: the worker took the job over (its
		// exec was its worker point).
		job.launched = &bgLaunch{site: a.siteAt(job, fc, s.Pos())}
		return
	}
	c := job.lastCmd
	if job.launched != nil || job.dead || job.returning || c == nil || c == before || c.returns || c.wrapOnly {
		return
	}
	a.workerPoint(job, c)
	job.launched = &bgLaunch{site: a.siteAt(job, fc, s.Pos()), wraps: c.wraps}
}

// helperBg reports the background launches of a process that execs its
// worker: they are helpers (Xvfb … &, a daemon started with ( env -i
// setsid … & )) that nobody waits for or supervises, neither the worker
// nor under its wrappers.
func (a *analyzer) helperBg(st *state) {
	for _, b := range st.bg {
		if !b.managed {
			a.pass.Background = fact(a.pass.Background, Background{At: b.site, Nohup: b.nohup, Forked: b.forked, Helper: true})
		}
	}
	st.bg = nil
}

// waitBg is wait: the background jobs this process waits for ran as its
// worker may have, under their wrappers; a subshell's orphans stay.
func (a *analyzer) waitBg(st *state) {
	var orphans []bgLaunch
	for _, b := range st.bg {
		if b.orphan {
			orphans = append(orphans, b)
			continue
		}
		a.reportWraps(b.wraps, false)
	}
	st.bg = orphans
}
