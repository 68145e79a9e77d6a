package interp

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/progs"
	"github.com/childproof/childproof/envres/internal/shape"
	"github.com/childproof/childproof/envres/script"
	"github.com/childproof/childproof/internal/dotenv"
)

// sourceCmd is `. FILE` / `source FILE [ARGS]`.
func (a *analyzer) sourceCmd(st *state, fc *fileCtx, stmt *syntax.Stmt, s Site, ops []expand.Field) {
	if len(ops) == 0 {
		return
	}
	p := ops[0]
	if p.Known && (p.Str == "/dev/stdin" || p.Str == "/dev/fd/0" || p.Str == "/proc/self/fd/0") && stmt != nil {
		// source /dev/stdin <<< "$(grep … .env)", or <<EOF … $(…) … EOF.
		for _, r := range stmt.Redirs {
			if r.Op != syntax.WordHdoc && r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
				continue
			}
			w := r.Word
			if r.Op != syntax.WordHdoc {
				w = r.Hdoc
			}
			if w == nil {
				continue
			}
			syntax.Walk(w, func(n syntax.Node) bool {
				if cs, ok := n.(*syntax.CmdSubst); ok {
					a.streamLoad(st, fc, s, cs.Stmts, false)
					return false
				}
				return true
			})
			return
		}
	}
	if len(p.Procs()) > 0 {
		// source <(…): a load of the file the substitution reads.
		for _, ps := range p.Procs() {
			a.streamLoad(st, fc, s, ps.Stmts, false)
		}
		return
	}
	if progs.ActivatePath(p.Str) {
		what := p.Str
		if p.Word != nil {
			what = shape.NodeText(p.Word)
		}
		a.reportActivation(s, "source "+what)
		return
	}
	if !p.Known {
		a.unresolved(st, s, p.Str, false)
		return
	}
	abs := expand.JoinPath(st.Cwd, p.Str)
	if abs == "" {
		a.unresolved(st, s, p.Str, false)
		return
	}
	a.sourceFile(st, s, abs, p.Str, ops[1:], false, false, false)
}

// unresolved records a source or load whose file is not known statically.
func (a *analyzer) unresolved(st *state, s Site, what string, isLoad bool) {
	if isLoad || st.allexport {
		a.pendLoad(st, s, what, false)
		return
	}
	msg := "the sourced path cannot be resolved statically: what it does to the environment is not checked"
	if what != "" && !strings.Contains(what, "\x00") {
		msg = "the sourced path cannot be resolved statically (" + what + "…): what it does to the environment is not checked"
	}
	a.uncheckedAt(s, msg)
}

// pendLoad records an env-file load whose names are not known, to be
// reported where a worker starts (or at the end of a file that starts
// none); unreadable says its path is known but the file cannot be read.
func (a *analyzer) pendLoad(st *state, s Site, what string, unreadable bool) {
	ev := a.newEvent(evLoad, s, what)
	ev.unresolved, ev.unreadable = true, unreadable
	if len(st.pending) < maxPending {
		st.pending = append(st.pending[:len(st.pending):len(st.pending)], ev)
	}
}

// sourceFile walks a sourced file in the current shell. With forceLoad
// (eval "$(cat F)", source <(…)) or under set -a, or when the file only
// assigns, it is an env-file load: its assignments are reported at s.
func (a *analyzer) sourceFile(st *state, s Site, abs, given string, args []expand.Field, forceLoad, exportAll, stripCR bool) {
	if a.onStack(abs) || a.depth >= maxDepth {
		return // a file that sources itself: once is enough
	}
	pf := a.parse(abs)
	if pf.err != nil {
		var pe *ParseError
		errors.As(pf.err, &pe)
		switch {
		case pf.src == nil:
			if forceLoad || st.allexport {
				a.pendLoad(st, s, a.display(abs), true)
			} else {
				a.uncheckedAt(s, "the sourced file "+a.display(abs)+" cannot be read: what it does to the environment is not checked")
			}
		default:
			// Not shell: read it as an env file.
			entries, derr := dotenv.ParseAs(pf.name, pf.src, dotenv.Shell, false)
			if derr != nil && len(entries) == 0 {
				a.uncheckedAt(s, "the sourced file "+pe.Error()+": what it does to the environment is not checked")
				return
			}
			a.entriesLoad(st, s, pf.name, entries, loadOpts{exportAll: exportAll, file: abs})
		}
		return
	}
	load := forceLoad || st.allexport || shape.IsEnvLike(pf.file)
	prevLoad := st.load
	if load && st.load == nil {
		what := pf.name
		if pf.crlf && !stripCR {
			what += " (CRLF line endings: bash keeps the \\r at the end of each value)"
		}
		ev := a.newEvent(evLoad, s, what)
		ev.file = abs
		st.load = &loadCtx{ev: ev, exportAll: exportAll}
	}
	saveArgs, saveSource, saveChain := st.Args, st.Source, st.chain
	if len(args) > 0 {
		st.Args = args
	}
	st.Source = expand.DotSlash(given)
	st.chain = append(st.chain[:len(st.chain):len(st.chain)], Pos{File: s.File, Line: s.Line})
	a.stack = append(a.stack, abs)
	a.depth++
	fc := pf.ctx()
	if stripCR && fc.crlfSrc != nil {
		c := *fc
		c.crlfSrc = nil
		fc = &c
	}
	a.stmts(st, fc, pf.file.Stmts)
	a.depth--
	a.stack = a.stack[:len(a.stack)-1]
	st.returning = false
	st.Args, st.Source, st.chain = saveArgs, saveSource, saveChain
	st.load = prevLoad
}

// loadOpts says how a loader applies a file's entries.
type loadOpts struct {
	exportAll bool           // every name is exported
	fill      fillMode       // only names without a value are assigned
	dialect   dotenv.Dialect // how the loader reads the file
	stripCR   bool           // the loader's pipeline removes carriage returns
	by        string         // the loader, for messages ("dotenv run")
	file      string         // the env file read (absolute)
}

// entriesLoad applies env-file entries as a load at s.
func (a *analyzer) entriesLoad(st *state, s Site, what string, entries []dotenv.Entry, o loadOpts) {
	prev := st.load
	ev := a.newEvent(evLoad, s, what)
	ev.fill = o.fill
	ev.file = o.file
	st.load = &loadCtx{ev: ev, exportAll: o.exportAll, fill: o.fill}
	for _, e := range entries {
		v := expand.Lit(e.Value)
		if e.Dynamic {
			v = expand.UnknownValue
		}
		a.assign(st, nil, e.Name, v, e.Export, syntax.Pos{}, false)
	}
	st.load = prev
}

// dotenvLoad reads an env file with internal/dotenv (export $(…), while
// read …, env $(…)) and applies it as a load at s.
func (a *analyzer) dotenvLoad(st *state, s Site, abs string, o loadOpts) {
	name := a.display(abs)
	src, err := a.readFile(abs)
	if err != nil {
		a.pendLoad(st, s, name, true)
		return
	}
	a.noteFile(name, src)
	if l, _ := script.BinaryAt(src); l > 0 {
		a.unresolved(st, s, name, true)
		return
	}
	entries, derr := dotenv.ParseAs(name, src, o.dialect, o.stripCR)
	if derr != nil {
		a.pass.Loads = fact(a.pass.Loads, Load{At: s, ParseError: derr.Error()})
	}
	what := name
	if o.by != "" {
		what += " (" + o.by + ")"
	}
	o.file = abs
	a.entriesLoad(st, s, what, entries, o)
}

// loadFile is the file a substitution reads, if it can be found.
type loadFile struct {
	abs     string   // the file, when it exists
	more    []string // further files it reads (grep … a b, cat secrets/*), absolute
	name    string   // what to call it in messages
	found   bool
	cands   bool // the substitution names at least one file-like operand
	exports bool // the substitution's text mentions export (sed 's/^/export /')
	stripCR bool // the pipeline removes carriage returns (sed 's/\r$//', tr -d '\r', dos2unix)
	xargs   bool // the pipeline ends in xargs, which removes quotes (not with -d or -0)
}

// wordsDialect is how the words of $(… F …) reach export, env or a for
// loop: through xargs, unquoted as the shell reads them; else word-split
// with the quotes kept.
func (lf loadFile) wordsDialect() dotenv.Dialect {
	if lf.xargs {
		return dotenv.Shell
	}
	return dotenv.Words
}

// findLoadFile finds which file a command or process substitution reads:
// cat F, grep … F, sed … F, xargs < F, cut … F, awk … F.
func (a *analyzer) findLoadFile(st *state, fc *fileCtx, stmts []*syntax.Stmt) loadFile {
	var res loadFile
	ev := a.eval(st, fc)
	var cands []expand.Field
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Stmt:
				for _, r := range n.Redirs {
					if r.Op == syntax.RdrIn && r.Word != nil {
						cands = append(cands, ev.Word(r.Word))
					}
				}
			case *syntax.SglQuoted:
				if strings.Contains(n.Value, "export") {
					res.exports = true
				}
				if strings.Contains(n.Value, `\r`) {
					res.stripCR = true
				}
			case *syntax.Lit:
				if strings.Contains(n.Value, "export") {
					res.exports = true
				}
				if strings.Contains(n.Value, `\r`) || n.Value == "dos2unix" {
					res.stripCR = true
				}
			case *syntax.CallExpr:
				if len(n.Args) > 0 && n.Args[0].Lit() == "xargs" {
					res.xargs = true
					for _, w := range n.Args[1:] {
						if l := w.Lit(); strings.HasPrefix(l, "-d") || l == "-0" || l == "--null" || strings.HasPrefix(l, "--delimiter") {
							res.xargs = false
						}
					}
				}
				if len(n.Args) < 2 {
					return true
				}
				fs := ev.Fields(n.Args)
				for _, i := range progs.FileOperands(progArgs(fs)) {
					cands = append(cands, fs[i])
				}
			}
			return true
		})
	}
	for _, c := range cands {
		if !c.Known {
			res.cands = true
			if res.name == "" && c.Word != nil {
				res.name = shape.NodeText(c.Word)
			}
			if res.name == "" && c.Str != "" {
				res.name = c.Str
			}
			continue
		}
		res.cands = true
		for _, abs := range a.globFiles(st.Cwd, c) {
			if !res.found {
				res.abs, res.name, res.found = abs, a.display(abs), true
			} else if abs != res.abs && !slices.Contains(res.more, abs) && len(res.more) < maxLoopItems {
				res.more = append(res.more, abs)
			}
		}
		if res.name == "" {
			res.name = c.Str
		}
	}
	return res
}

// files returns every file the substitution reads, the first first.
func (lf loadFile) files() []string {
	if !lf.found {
		return nil
	}
	return append([]string{lf.abs}, lf.more...)
}

// globFiles returns the existing regular files an operand names: the
// file, or the matches of an unquoted glob (secrets/*, conf.d/*.env), in
// the order the shell sorts them.
func (a *analyzer) globFiles(cwd string, c expand.Field) []string {
	abs := expand.JoinPath(cwd, c.Str)
	if abs == "" {
		return nil
	}
	if !strings.ContainsAny(c.Str, "*?[") || !shape.UnquotedGlob(c.Word) {
		if a.isFile(abs) {
			return []string{abs}
		}
		return nil
	}
	ms, err := filepath.Glob(abs)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range ms {
		if a.isFile(m) && len(out) < maxLoopItems {
			out = append(out, m)
		}
	}
	return out
}

// substLoads handles the command substitutions of an operand of export,
// declare or env: export $(grep -v '^#' .env | xargs).
//
// Only a substitution whose output becomes NAME=VALUE words loads: one
// after the word's first '=' is a value (declare -g ${name}="$(… | head -1)",
// a dynamic assignment, not a load).
func (a *analyzer) substLoads(st *state, fc *fileCtx, s Site, f expand.Field, exportAll bool) {
	for _, cs := range f.NameSubsts() {
		lf := a.findLoadFile(st, fc, cs.Stmts)
		switch {
		case lf.found:
			for _, f := range lf.files() {
				a.dotenvLoad(st, s, f, loadOpts{exportAll: exportAll, stripCR: lf.stripCR, dialect: lf.wordsDialect()})
			}
		case lf.cands:
			a.unresolved(st, s, lf.name, true)
		default:
			a.unresolved(st, s, "", true)
		}
	}
}

// streamLoad is source <(…) or eval "$(…)": the file the substitution
// reads is run as shell in the current process.
func (a *analyzer) streamLoad(st *state, fc *fileCtx, s Site, stmts []*syntax.Stmt, quiet bool) {
	lf := a.findLoadFile(st, fc, stmts)
	switch {
	case lf.found:
		for _, f := range lf.files() {
			a.sourceFile(st, s, f, f, nil, true, lf.exports, lf.stripCR)
		}
	case lf.cands:
		a.unresolved(st, s, lf.name, true)
	case !quiet:
		a.unresolved(st, s, "", true)
	}
}

// evalCmd is eval: eval "$(cat .env)" is a load; a literal string is
// walked as shell.
func (a *analyzer) evalCmd(st *state, fc *fileCtx, s Site, ops []expand.Field) {
	var substs []*syntax.CmdSubst
	known := true
	for _, f := range ops {
		substs = append(substs, f.Substs()...)
		known = known && f.Known
	}
	if len(substs) > 0 {
		for _, cs := range substs {
			if mech := activationEval(cs.Stmts); mech != "" {
				a.reportActivation(s, "eval \"$("+mech+")\"")
				continue
			}
			a.streamLoad(st, fc, s, cs.Stmts, true)
		}
		return
	}
	if !known || len(ops) == 0 {
		return
	}
	var parts []string
	for _, f := range ops {
		parts = append(parts, f.Str)
	}
	f, err := a.parser.Parse(fc.name, []byte(strings.Join(parts, " ")), fc.lang)
	if err != nil {
		return
	}
	if a.depth >= maxDepth {
		return
	}
	efc := a.embeddedCtx(fc, ops[0])
	a.depth++
	a.stmts(st, efc, f.Stmts)
	a.depth--
}

// whileReadLoad is `while read …; do export …; done < FILE`.
func (a *analyzer) whileReadLoad(st *state, fc *fileCtx, s *syntax.Stmt, c *syntax.WhileClause) {
	if len(s.Redirs) == 0 || c.Until {
		return
	}
	reads := false
	for _, cs := range c.Cond {
		syntax.Walk(cs, func(n syntax.Node) bool {
			if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 && ce.Args[0].Lit() == "read" {
				reads = true
			}
			return true
		})
	}
	if !reads {
		return
	}
	exports, evals := shape.BodyLoads(c.Do)
	if !reads || !exports && !evals {
		return
	}
	// export "$line" takes each line verbatim; eval "$line" reads it as shell.
	o := loadOpts{exportAll: exports, fill: shape.LoopFill(c.Do), dialect: dotenv.Lines}
	if evals && !exports {
		o.dialect = dotenv.Shell
	}
	ev := a.eval(st, fc)
	for _, r := range s.Redirs {
		if r.Op != syntax.RdrIn || r.Word == nil {
			continue
		}
		// Reported where the file is named: the "done < .env" line.
		site := a.siteAt(st, fc, r.OpPos)
		f := ev.Word(r.Word)
		if len(f.Procs()) > 0 {
			for _, ps := range f.Procs() {
				lf := a.findLoadFile(st, fc, ps.Stmts)
				if lf.found {
					o := o
					o.stripCR = lf.stripCR
					a.dotenvLoad(st, site, lf.abs, o)
				} else {
					a.unresolved(st, site, lf.name, true)
				}
			}
			continue
		}
		if !f.Known {
			a.unresolved(st, site, f.Str, true)
			continue
		}
		abs := expand.JoinPath(st.Cwd, f.Str)
		if abs == "" || !a.isFile(abs) {
			a.pendLoad(st, site, f.Str, abs != "")
			continue
		}
		a.dotenvLoad(st, site, abs, o)
	}
}
