package interp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/fscache"
	"github.com/childproof/childproof/envres/script"
	"github.com/childproof/childproof/schema"
)

// Limits that keep the analysis bounded on any input.
const (
	maxDepth     = 24 // nested sources, execs and function calls
	maxSteps     = 2_000_000
	maxLoopItems = 16
)

// protVar is a protected variable.
type protVar struct {
	name     string
	value    string
	known    bool
	override bool // an override (value matters), not only required
}

// parsedFile is a file read and parsed once.
type parsedFile struct {
	abs, name string
	src       []byte
	file      *syntax.File
	lang      syntax.LangVariant // the dialect its shebang names (shebangLang)
	crlf      bool               // lines end in \r\n
	err       error              // *ParseError
	// top marks a script given to lint; kept marks a file whose tree
	// forget keeps for the next scripts.
	top, kept bool
	fc        *fileCtx // ctx's
}

// ctx is the file context of statements parsed from pf, made once: a
// .env sourced a thousand times has one. Callers that change it copy it.
func (pf *parsedFile) ctx() *fileCtx {
	if pf.fc == nil {
		pf.fc = &fileCtx{name: pf.name, abs: pf.abs, lang: pf.lang}
		if pf.crlf {
			pf.fc.crlfSrc = pf.src
		}
	}
	return pf.fc
}

// fileCtx is the file statements come from; embedded strings (bash -c,
// eval) map their positions into the file that holds them.
type fileCtx struct {
	name     string
	abs      string
	embedded bool
	line     int // position of the embedded string's first byte
	col      int
	// lang is the dialect the file is parsed in: bash (the zero value),
	// POSIX sh or mksh, by its shebang.
	lang syntax.LangVariant
	// crlfSrc is the file's text when its lines end in \r\n: bash keeps
	// the \r in a word that ends a line, the parser drops it.
	crlfSrc []byte
}

// crAt reports whether bash would read a carriage return as the last
// byte of a word ending at byte offset end: the parser consumed and
// dropped it (the byte before end), or it follows the word right before
// the newline.
func (fc *fileCtx) crAt(end uint) bool {
	src := fc.crlfSrc
	if src == nil || fc.embedded || end == 0 || int(end) > len(src) {
		return false
	}
	if src[end-1] == '\r' {
		return true
	}
	return int(end) < len(src) && src[end] == '\r' && (int(end)+1 == len(src) || src[end+1] == '\n')
}

func (fc *fileCtx) pos(p syntax.Pos) (int, int) {
	l, c := int(p.Line()), int(p.Col())
	if !fc.embedded {
		if l == 0 {
			l = 1
		}
		if c == 0 {
			c = 1
		}
		return l, c
	}
	if l <= 1 {
		return fc.line, fc.col + max(c, 1) - 1
	}
	return fc.line + l - 1, max(c, 1)
}

type bodyRef struct {
	stmt *syntax.Stmt
	fc   *fileCtx
	name string
}

type analyzer struct {
	ctx      context.Context
	cfg      Config
	dir      string
	prot     map[string]*protVar
	written  map[string]bool // files an output redirect of the chain writes (noteWritten)
	protList []*protVar
	aliases  map[string]string

	files   []string
	sources map[string][]byte
	parsed  map[string]*parsedFile

	steps     int
	depth     int
	stack     []string // files being sourced or exec'd (recursion guard)
	calls     []*bodyRef
	stopped   bool
	lastCheck int
	fatal     error // a nested script that does not parse
	funcSite  *Site // the outermost function call being walked
	funcName  string
	// funcSiteBuf holds the site funcSite points at while the outermost
	// call is walked (one per analysis, not one allocation per call).
	funcSiteBuf Site
	frames      []map[string]*varState // values saved by local, per call
	plan        *planRec               // set for Plan: records where workers start
	// fileArrays are arrays filled from a file, by name (loops.go).
	fileArrays map[string]fileArray
	// fileCache holds what the file system said of a path (fscache.go).
	fileCache *fscache.Cache
	// parser holds the parsers of each dialect, reused.
	parser script.Parser
	// keptSrc counts the source bytes of the trees forget keeps.
	keptSrc int
	// fieldBuf is the chunk fields cuts evaluated words from.
	fieldBuf []expand.Field
	fieldGen int // counts the chunks fieldBuf was cut from
	// pass collects the facts the rules report from.
	pass Facts
	// factSeen holds the flow facts recorded (once).
	factSeen map[factKey]struct{}
	// shebangWraps are the notes of the shebang of the script runChild
	// starts next (./F), handed over by command.
	shebangWraps []wrapNote
	// workerPoints counts the places a worker starts; helperEnd is set
	// while the end of a script that starts none is checked (helperNote).
	workerPoints int
	helperEnd    bool
	// detached is set for the next runChild: a here-document run as a
	// job or on another host (heredocJobRun), whose end is its own.
	detached bool
	// handed holds, per child process being walked, the exec that ended
	// it when the child runs in the foreground (its wrappers go to the
	// caller's last command).
	handed []*cmdRef
	// mayNote ends the wrapper findings of a command word held in a
	// variable that has that value only on some paths (commandAlts).
	mayNote string
	// loaded are the values env-file loads assigned: masked as ${NAME}
	// in paths and messages.
	loaded loadedVals
}

func newAnalyzer(ctx context.Context, cfg Config, dir string) *analyzer {
	a := &analyzer{
		ctx: ctx, cfg: cfg, dir: dir,
		prot:    map[string]*protVar{},
		aliases: map[string]string{},
		sources: map[string][]byte{},
		parsed:  map[string]*parsedFile{},

		fileArrays: map[string]fileArray{},
		fileCache:  fscache.New(),
	}
	for k, v := range schema.BuiltinAliases {
		a.aliases[k] = v
	}
	for k, v := range cfg.Aliases {
		a.aliases[k] = v
	}
	for _, o := range cfg.Overrides {
		a.prot[o.Name] = &protVar{name: o.Name, value: o.Value, known: o.Known, override: true}
	}
	for _, r := range cfg.Require {
		if a.prot[r] == nil {
			a.prot[r] = &protVar{name: r}
		}
	}
	for _, p := range a.prot {
		a.protList = append(a.protList, p)
	}
	sort.Slice(a.protList, func(i, j int) bool { return a.protList[i].name < a.protList[j].name })
	return a
}

// forget drops what one top-level script's analysis built and the next
// does not need: the syntax trees (a script's tree is several times its
// size; a 1,000-script run would keep them all) and the arrays read from
// files. Sources stay, for snippets; a file is parsed again if another
// script reaches it.
//
// The trees of small files that scripts source or run (a .env, a lib.sh)
// are kept, up to keptSrcMax bytes of source in all: the next script
// that reaches one does not read and parse it again.
func (a *analyzer) forget() {
	if a.plan != nil {
		return // Plan's facts point into the trees
	}
	for abs, pf := range a.parsed {
		if pf.kept {
			continue
		}
		if !pf.top && len(pf.src) <= keptFileMax && a.keptSrc+len(pf.src) <= keptSrcMax {
			pf.kept = true
			a.keptSrc += len(pf.src)
			continue
		}
		delete(a.parsed, abs)
	}
	clear(a.fileArrays)
}

// What forget keeps of the files that scripts reach: each at most
// keptFileMax bytes, keptSrcMax bytes in all.
const (
	keptFileMax = 64 << 10
	keptSrcMax  = 4 << 20
)

// tick counts one step of work and reports whether to go on.
func (a *analyzer) tick() bool {
	if a.stopped {
		return false
	}
	a.steps++
	if a.steps > maxSteps {
		a.stopped = true
		return false
	}
	if a.steps-a.lastCheck >= 4096 {
		a.lastCheck = a.steps
		if a.ctx.Err() != nil {
			a.stopped = true
			return false
		}
	}
	return true
}

// display returns how a path is reported: relative to the lint directory
// when inside it, else as is.
func (a *analyzer) display(abs string) string {
	if rel, err := filepath.Rel(a.dir, abs); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") {
		return a.loaded.mask(rel)
	}
	return a.loaded.mask(abs)
}

func (a *analyzer) noteFile(name string, src []byte) {
	if _, ok := a.sources[name]; ok {
		return
	}
	a.sources[name] = src
	a.files = append(a.files, name)
}

// readFile reads a file by absolute path, once.
func (a *analyzer) readFile(abs string) ([]byte, error) {
	if abs == os.DevNull {
		return []byte{}, nil // an empty script, as a shell reads it
	}
	if a.fileCache.Pseudo(abs) {
		return nil, fmt.Errorf("under /proc, /sys or /dev: not read (such files may block or never end)")
	}
	return script.Read(abs)
}

// parse reads and parses a script. The error is a *ParseError.
func (a *analyzer) parse(abs string) *parsedFile {
	if pf, ok := a.parsed[abs]; ok {
		return pf
	}
	name := a.display(abs)
	pf := &parsedFile{abs: abs, name: name}
	a.parsed[abs] = pf
	src, err := a.readFile(abs)
	if err != nil {
		pf.err = &ParseError{Pos: Pos{File: name}, Msg: "cannot read: " + err.Error(), Err: err}
		return pf
	}
	pf.src = src
	a.noteFile(name, src)
	pf.file, pf.lang, pf.err = a.parser.Script(name, src)
	if pf.file != nil {
		pf.crlf = bytes.Contains(src, []byte("\r\n"))
	}
	return pf
}

// readOf is the env file ev's load read, as a finding's FileRead (zero
// when it read none).
func (a *analyzer) readOf(ev *event) FileRead {
	if ev.file == "" {
		return FileRead{}
	}
	return FileRead{Path: ev.file, Shown: a.display(ev.file)}
}

// noteWritten records the files a statement's output redirects write:
// an env file the chain writes itself is generated, not edited by hand.
func (a *analyzer) noteWritten(st *state, s *syntax.Stmt) {
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			if r.Word == nil {
				continue
			}
			if w := r.Word.Lit(); w != "" && !strings.HasPrefix(w, "/dev/") {
				if abs := expand.JoinPath(st.Cwd, w); abs != "" {
					if a.written == nil {
						a.written = map[string]bool{}
					}
					a.written[abs] = true
				}
			}
		}
	}
}

// newEvent makes an event at s. Inside a function call, a change to the
// environment takes effect where the function is called: the event is
// moved to the outermost call, and notes the line inside the function.
func (a *analyzer) newEvent(kind evKind, s Site, what string) *event {
	ev := &event{kind: kind, site: s, what: what}
	if fs := a.funcSite; fs != nil && (s.File != fs.File || s.Line != fs.Line) {
		ev.note = fmt.Sprintf(" (in function %s, %s:%d)", a.funcName, s.File, s.Line)
		ev.site = *fs
	}
	return ev
}

// reportParseError reports a script that cannot be read or parsed as a
// parse-error finding at its file:line:col (line 1, column 1 when the
// error has no place), with the chain that reached it.
func (a *analyzer) reportParseError(err error, chain []Pos) {
	pe, ok := err.(*ParseError)
	if !ok {
		return
	}
	s := Site{Pos: Pos{File: pe.File, Line: max(pe.Line, 1), Column: max(pe.Column, 1)}, Chain: chain}
	a.pass.Unparsed = fact(a.pass.Unparsed, Unchecked{At: s, Message: pe.Msg})
}

// protNames returns the protected variables' names, sorted.
func (a *analyzer) protNames() []string {
	out := make([]string, len(a.protList))
	for i, p := range a.protList {
		out[i] = p.name
	}
	return out
}

// siteAt builds a site for a position in fc under st's chain.
func (a *analyzer) siteAt(st *state, fc *fileCtx, p syntax.Pos) Site {
	l, c := fc.pos(p)
	return Site{Pos: Pos{File: fc.name, Line: l, Column: c}, Chain: st.chain, InString: fc.embedded}
}

// initialState is the state a top-level script starts in.
func (a *analyzer) initialState(cwd string) *state {
	st := &state{Scope: expand.Scope[event]{Vars: expand.NewLayer[event](nil), Cwd: cwd}}
	for _, p := range a.protList {
		st.Set(p.name, varState{Val: expand.Value{Kind: expand.Orig, Str: p.name}, Exp: expand.Yes})
	}
	for _, s := range a.cfg.Args {
		st.Args = append(st.Args, expand.Field{Str: s, Known: true, Val: expand.Lit(s)})
	}
	if a.cfg.ArgsUnknown {
		st.Args = expand.UnknownArgs
	}
	return st
}

// lintScript lints one top-level script.
func (a *analyzer) lintScript(script string) error {
	abs := script
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(a.dir, script)
	}
	abs = filepath.Clean(abs)
	pf := a.parse(abs)
	pf.top = true
	if pf.err != nil {
		if a.cfg.KeepGoing {
			a.reportParseError(pf.err, nil)
			return nil
		}
		return pf.err
	}
	st := a.initialState(a.dir)
	if !a.cfg.IgnoreShebang {
		st.wraps = shebangNotes(pf.src, Site{Pos: Pos{File: pf.name, Line: 1, Column: 1}})
	}
	// $0 and BASH_SOURCE are the path as given, as bash sets them.
	st.Dollar0, st.Source = expand.DotSlash(script), expand.DotSlash(script)
	fc := pf.ctx()
	a.stack = append(a.stack, abs)
	before := a.workerPoints
	a.stmts(st, fc, pf.file.Stmts)
	a.stack = a.stack[:len(a.stack)-1]
	a.processEnd(st, fc, true)
	if a.workerPoints == before && !st.dead && (st.loaded || len(st.pending) > 0) {
		// A helper meant to be sourced (it starts no worker) that loads
		// an env file into the exported environment — readable or not:
		// whoever sources it is clobbered, so its end is checked as a
		// worker's start.
		a.helperEnd = true
		a.workerPoint(st, nil)
		a.helperEnd = false
	}
	return nil
}

// lintArgv lints cfg.Argv as if a script said `exec ARGV…`.
func (a *analyzer) lintArgv(argv []string) error {
	src := []byte(script.QuoteArgv(argv) + "\n")
	a.noteFile(CommandFile, src)
	st := a.initialState(a.dir)
	fc := &fileCtx{name: CommandFile, abs: ""}
	var fs []expand.Field
	col := 1
	for i, s := range argv {
		f := expand.LitField(s, syntax.NewPos(uint(col-1), 1, uint(col)))
		fs = append(fs, f)
		col += len(script.QuoteArgv(argv[i:i+1])) + 1
	}
	a.command(st, fc, nil, fs, callExec, nil)
	return nil
}

// ArgvIndex returns the index of the argument of argv that a finding in
// CommandFile at byte column col points at, or -1 (script.ArgvIndex).
func ArgvIndex(argv []string, col int) int { return script.ArgvIndex(argv, col) }
