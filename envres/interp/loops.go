package interp

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/shape"
	"github.com/childproof/childproof/internal/dotenv"
)

// Loader loops: a loop over the words or lines of an env file, or over an
// array read from one, whose body exports (or evals) what it reads:
//
//	for kv in $(cat .env); do export "$kv"; done
//	mapfile -t lines < .env; for l in "${lines[@]}"; do export "$l"; done
//	while IFS='=' read -r k v; do printf -v "$k" %s "$v"; export "$k"; done < .env
//
// The while-read form is whileReadLoad's.
// fileArray is an array filled from a file (mapfile/readarray/read -a
// with an input redirection, arr=($(cat F))), for a later loop over it.
type fileArray struct {
	site    Site
	lf      loadFile
	dialect dotenv.Dialect // lines (mapfile, read -d '') or words (arr=($(cat F)))
}

// forLoad is a for loop over a file's words or an array read from a file
// whose body exports or evals them: a load of the file.
func (a *analyzer) forLoad(st *state, fc *fileCtx, c *syntax.ForClause, wi *syntax.WordIter) {
	// Only a list with a command substitution or an array read from a
	// file can be a load: most lists are literal, and their bodies are
	// not looked at here.
	maybe := false
	for _, w := range wi.Items {
		if arr := shape.ArrayParam(w); arr != "" {
			_, ok := a.fileArrays[arr]
			maybe = maybe || ok
			continue
		}
		maybe = maybe || shape.HasCmdSubst(w)
	}
	if !maybe {
		return
	}
	exports, evals := shape.BodyLoads(c.Do)
	if !exports && !evals {
		return
	}
	o := loadOpts{exportAll: exports, fill: shape.LoopFill(c.Do)}
	for _, w := range wi.Items {
		if arr := shape.ArrayParam(w); arr != "" {
			if fa, ok := a.fileArrays[arr]; ok {
				o := o
				o.dialect = fa.dialect
				a.applyLoad(st, fa.site, fa.lf, o)
			}
			continue
		}
		var stmts []*syntax.Stmt
		syntax.Walk(w, func(n syntax.Node) bool {
			if cs, ok := n.(*syntax.CmdSubst); ok {
				stmts = append(stmts, cs.Stmts...)
				return false
			}
			return true
		})
		if len(stmts) == 0 {
			continue
		}
		lf := a.findLoadFile(st, fc, stmts)
		if lf.found || lf.cands {
			o := o
			o.dialect = lf.wordsDialect()
			a.applyLoad(st, a.siteAt(st, fc, c.ForPos), lf, o)
		}
	}
}

// applyLoad loads the file lf found, or records an unresolved load.
func (a *analyzer) applyLoad(st *state, s Site, lf loadFile, o loadOpts) {
	o.stripCR = o.stripCR || lf.stripCR
	if lf.found {
		a.dotenvLoad(st, s, lf.abs, o)
		return
	}
	a.unresolved(st, s, lf.name, true)
}

// noteFileArray records an array a builtin fills from a file:
// mapfile -t A < F, readarray A < <(grep … F), read -ra A < F.
func (a *analyzer) noteFileArray(st *state, fc *fileCtx, s *syntax.Stmt, name string) {
	if s == nil {
		return
	}
	for _, r := range s.Redirs {
		if r.Op != syntax.RdrIn || r.Word == nil {
			continue
		}
		lf := a.wordFile(st, fc, r.Word)
		if lf.found || lf.cands {
			a.fileArrays[name] = fileArray{site: a.siteAt(st, fc, r.OpPos), lf: lf, dialect: dotenv.Lines}
		}
		return
	}
}

// noteArrayAssign records arr=($(cat F)).
func (a *analyzer) noteArrayAssign(st *state, fc *fileCtx, as *syntax.Assign) {
	if as.Name == nil || as.Array == nil {
		return
	}
	var stmts []*syntax.Stmt
	for _, el := range as.Array.Elems {
		if el.Value == nil {
			continue
		}
		syntax.Walk(el.Value, func(n syntax.Node) bool {
			if cs, ok := n.(*syntax.CmdSubst); ok {
				stmts = append(stmts, cs.Stmts...)
				return false
			}
			return true
		})
	}
	if len(stmts) == 0 {
		delete(a.fileArrays, as.Name.Value)
		return
	}
	if lf := a.findLoadFile(st, fc, stmts); lf.found || lf.cands {
		a.fileArrays[as.Name.Value] = fileArray{site: a.siteAt(st, fc, as.Pos()), lf: lf, dialect: lf.wordsDialect()}
	}
}

// wordFile is the file a redirection word names: a path, or the file a
// process substitution reads (< <(grep -v '^#' .env)).
func (a *analyzer) wordFile(st *state, fc *fileCtx, w *syntax.Word) loadFile {
	ev := a.eval(st, fc)
	f := ev.Word(w)
	if len(f.Procs()) > 0 {
		var stmts []*syntax.Stmt
		for _, ps := range f.Procs() {
			stmts = append(stmts, ps.Stmts...)
		}
		return a.findLoadFile(st, fc, stmts)
	}
	if !f.Known {
		return loadFile{cands: true, name: shape.NodeText(w)}
	}
	abs := expand.JoinPath(st.Cwd, f.Str)
	if abs != "" && a.isFile(abs) {
		return loadFile{abs: abs, name: a.display(abs), found: true, cands: true}
	}
	return loadFile{cands: true, name: f.Str}
}
