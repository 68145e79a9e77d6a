package interp

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/construct"
	"github.com/childproof/childproof/envres/internal/expand"
	"github.com/childproof/childproof/envres/internal/shape"
)

// Command is an external command run in the foreground. It is plain data,
// safe for concurrent use while no one changes it.
type Command struct {
	// Pos locates the command (File as in Result.Files).
	Pos
	// Name is the program as written (argv[0]), or "" when not known.
	Name string
}

// How says how a worker starts.
type How string

// The ways a worker starts.
const (
	// HowExec is an exec'd command: the script becomes the worker.
	HowExec How = "exec"
	// HowBackground is a command started with & (or setsid -f).
	HowBackground How = "background"
	// HowForeground is the last external command of a script, or a
	// command run with NAME=VALUE before it.
	HowForeground How = "foreground"
)

// Start is one place where a worker starts. It is plain data, safe for
// concurrent use while no one changes it.
type Start struct {
	// Pos locates the command (File as in Result.Files).
	Pos
	// Chain is the source/exec chain that led there.
	Chain []Pos
	How   How
	// Nohup is set for a command started with nohup.
	Nohup bool
	// Argv is the command's argv, each word resolved as far as the
	// analysis goes.
	Argv []Word
	// Dir is the absolute working directory; "" when not known statically.
	Dir string
	// Env lists the exported variables the scripts set on the way, sorted
	// by name, except those set by an env file load (see EnvFiles).
	Env []EnvSetting
	// EnvFiles are the absolute paths of the env files loaded into the
	// exported environment on the way, in the order loaded.
	EnvFiles []string
	// Inherit names caller variables the scripts export as they are
	// (export NAME, NAME=$NAME).
	Inherit []string
	// Unresolved describes what reaches the worker that the analysis
	// cannot resolve (a dynamic load, a value set on some paths only).
	Unresolved []Note
	// Reset is set when the environment was reset on the way (env -i, sudo).
	Reset bool
}

// Note is a remark at a place in a script. It is plain data, safe for
// concurrent use while no one changes it.
type Note struct {
	Pos
	Text string
}

// EnvSetting is an exported variable the scripts set. It is plain data,
// safe for concurrent use while no one changes it.
type EnvSetting struct {
	Name  string
	Value Word
	// Pos locates the assignment (Column is 0: not recorded).
	Pos
	// Clobbered is set when an env file loaded later assigned the name
	// again: the worker got the file's value, not this one.
	Clobbered bool
}

// Word is a word of the worker's argv or an exported value, resolved as far
// as the analysis goes. It is plain data, safe for concurrent use while no
// one changes it.
type Word struct {
	// Parts are the word's literal text and references to the caller's
	// environment, in order; nil when the word cannot be expressed so.
	Parts []Part
	// Text is the word as written in the script.
	Text string
}

// Resolved reports whether w is made of literal text and caller variables only.
func (w Word) Resolved() bool { return w.Parts != nil }

// Literal returns the word's value when it is literal text only.
func (w Word) Literal() (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		if p.Env != "" {
			return "", false
		}
		b.WriteString(p.Lit)
	}
	return b.String(), w.Parts != nil
}

// Part is literal text, or the caller's value of a variable. It is plain
// data, safe for concurrent use while no one changes it.
type Part struct {
	// Lit is the text when Env is "".
	Lit string
	// Env names the caller's variable.
	Env string
	// Default is used when Env is unset (HasDefault): ${X:-d}, ${X:=d}.
	Default    string
	HasDefault bool
	// Required is set for ${X:?msg}: the script refuses to go on without X.
	Required bool
	// Loaded names the env file Env's value was loaded from (as the load
	// describes it), when the script read it from one: the value is not
	// the script's text and never appears in a Part.
	Loaded string
}

// ConstructKind names a construct of Constructs.
type ConstructKind = construct.Kind

// Constructs a spec replaces or cannot express.
const (
	// ReadinessLoop is a loop polling with curl, wget, nc or sleep.
	ReadinessLoop = construct.ReadinessLoop
	// KillCleanup is pkill, killall, fuser -k or kill $(cat PIDFILE).
	KillCleanup = construct.KillCleanup
	// Conditional is an if or case statement.
	Conditional = construct.Conditional
)

// Construct is one such statement. It is plain data, safe for concurrent
// use while no one changes it.
type Construct = construct.Construct

// NewPlanner returns a planner for one Analyze: it records where workers
// start (Plan).
func NewPlanner() *Planner {
	return &Planner{bySite: map[string]int{}, exports: map[string]exportRec{}}
}

// Starts are the places where a worker may start, in the order the walk
// reached them.
func (p *Planner) Starts() []*Start { return p.starts }

// Commands are the external commands run in the foreground, in the order
// reached.
func (p *Planner) Commands() []Command { return p.commands }

// Planner records worker starts while the analyzer walks. It is not
// safe for concurrent use: one walk fills it.
type Planner struct {
	a       *analyzer
	starts  []*Start
	bySite  map[string]int
	exports map[string]exportRec // the last exported script assignment of each name
	// commands are the foreground commands run, once per place.
	commands []Command
	ranAt    map[string]bool
}

// ran is called for every non-trivial external command run in the
// foreground.
func (p *Planner) ran(ref *cmdRef) {
	key := ref.site.File + ":" + strconv.Itoa(ref.site.Line) + ":" + strconv.Itoa(ref.site.Column)
	if p.ranAt == nil {
		p.ranAt = map[string]bool{}
	}
	if p.ranAt[key] {
		return
	}
	p.ranAt[key] = true
	c := Command{Pos: ref.site.Pos}
	if len(ref.fs) > 0 && ref.fs[0].Known {
		c.Name = ref.fs[0].Str
	}
	p.commands = append(p.commands, c)
}

type exportRec struct {
	v    expand.Value
	site Site
}

// assigned is called for every assignment the analysis makes.
func (p *Planner) assigned(name string, ns varState, ev *event) {
	if ev == nil || ev.kind != evAssign || ns.Exp != expand.Yes || ev.note != "" {
		return
	}
	p.exports[name] = exportRec{v: ns.Val, site: ev.site}
}

// worker is called at every worker point with the environment it starts with.
func (p *Planner) worker(st *state, cmd *cmdRef) {
	a := p.a
	s := &Start{Pos: cmd.site.Pos, Chain: cmd.site.Chain,
		Nohup: cmd.nohup, Dir: st.Cwd, Reset: st.reset}
	switch cmd.mode {
	case callExec:
		s.How = HowExec
	case callBackground:
		s.How = HowBackground
	default:
		s.How = HowForeground
	}
	ev := a.eval(st.fork(), cmd.fc)
	for _, f := range cmd.fs {
		s.Argv = append(s.Argv, p.fieldWord(ev, f))
	}
	p.env(ev, st, s)
	key := s.File + ":" + strconv.Itoa(s.Line) + ":" + strconv.Itoa(s.Column)
	if i, ok := p.bySite[key]; ok {
		p.starts[i] = s
		return
	}
	p.bySite[key] = len(p.starts)
	p.starts = append(p.starts, s)
}

// fieldWord resolves one evaluated field of a command.
func (p *Planner) fieldWord(ev *evaluator, f expand.Field) Word {
	w := Word{Text: shape.WordText(f.Word)}
	switch {
	case f.Known && f.Word != nil && p.wordLoaded(ev, f.Word, 0):
		// Built from a value read from an env file: the value is no
		// literal of the script; resolve it as references, or not at all.
		if parts, ok := p.symParts(ev, f.Word.Parts, false, 0); ok {
			w.Parts = parts
		}
	case f.Known:
		w.Parts = []Part{{Lit: f.Str}}
		if w.Text == "" {
			w.Text = f.Str
		}
	case f.Splat:
		if w.Text == "" {
			w.Text = `"$@"`
		}
	case f.Val.Kind == expand.Orig:
		w.Parts = []Part{{Env: f.Val.Str}}
	case f.Word != nil && !expand.AtWord(f.Word):
		if parts, ok := p.symParts(ev, f.Word.Parts, false, 0); ok {
			w.Parts = parts
		}
	}
	return w
}

const maxSymDepth = 8

// symParts resolves word parts into literal text and caller variables.
func (p *Planner) symParts(ev *evaluator, parts []syntax.WordPart, inDq bool, depth int) ([]Part, bool) {
	out := []Part{}
	for _, wp := range parts {
		switch x := wp.(type) {
		case *syntax.DblQuoted:
			sub, ok := p.symParts(ev, x.Parts, true, depth)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		case *syntax.ParamExp:
			sub, ok := p.symParam(ev, x, depth)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		default:
			s, ok := tryParts(ev, wp, inDq)
			if !ok {
				return nil, false
			}
			out = append(out, Part{Lit: s})
		}
	}
	return joinLits(out), true
}

func joinLits(ps []Part) []Part {
	out := ps[:0]
	for _, q := range ps {
		if n := len(out); n > 0 && q.Env == "" && out[n-1].Env == "" {
			out[n-1].Lit += q.Lit
			continue
		}
		if q.Env == "" && q.Lit == "" {
			continue
		}
		out = append(out, q)
	}
	return out
}

// tryParts evaluates one word part as the analysis does, on a copy of the
// state (${X:=d} assigns).
func tryParts(ev *evaluator, wp syntax.WordPart, inDq bool) (string, bool) {
	var b expand.WordBuf
	f := expand.Field{Known: true}
	tmp := forked(ev)
	tmp.Parts([]syntax.WordPart{wp}, &b, &f, inDq)
	return b.String(), f.Known
}

// symParam resolves one parameter expansion.
func (p *Planner) symParam(ev *evaluator, pe *syntax.ParamExp, depth int) ([]Part, bool) {
	simple := pe.Param != nil && !pe.Excl && !pe.Length && pe.Index == nil && pe.Slice == nil && pe.Repl == nil &&
		pe.NestedParam == nil && pe.Names == 0 && syntax.ValidName(pe.Param.Value)
	loaded, derived := "", false
	if pe.Param != nil {
		loaded, derived = p.loadedFrom(ev, pe.Param.Value, depth)
		if (loaded != "" || derived) && !simple {
			return nil, false // ${KEY:0:4}, ${#KEY} of a value read from an env file
		}
	}
	if s, ok := tryParts(ev, pe, true); ok && loaded == "" && !derived {
		return []Part{{Lit: s}}, true
	}
	if !simple {
		return nil, false
	}
	name := pe.Param.Value
	vs, tracked := ev.Scope.Get(name)
	var base []Part
	caller := false
	switch {
	case loaded != "":
		base, caller = []Part{{Env: name, Loaded: loaded}}, true
	case derived:
		sub, ok := p.fromOrigin(ev, name, vs, depth)
		if !ok {
			return nil, false
		}
		base = sub
	case !tracked || vs.Val.Kind == expand.Unknown && len(vs.Origins) == 0:
		base, caller = []Part{{Env: name}}, true
	case vs.Val.Kind == expand.Orig:
		base, caller = []Part{{Env: vs.Val.Str}}, true
	case vs.Val.Kind == expand.Unknown:
		sub, ok := p.fromOrigin(ev, name, vs, depth)
		if !ok {
			return nil, false
		}
		base = sub
	default:
		return nil, false
	}
	if pe.Exp == nil {
		return base, true
	}
	if !caller {
		return nil, false
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		d := ""
		if pe.Exp.Word != nil {
			dp, ok := p.symParts(ev, pe.Exp.Word.Parts, false, depth+1)
			if !ok {
				return nil, false
			}
			s, lit := Word{Parts: dp}.Literal()
			if !lit {
				return nil, false
			}
			d = s
		}
		base[0].Default, base[0].HasDefault = d, true
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		base[0].Required = true
	default:
		return nil, false
	}
	return base, true
}

// fromOrigin resolves a variable the script set to a value the analysis
// does not know, from the one statement that set it: PORT=${PORT:-8080},
// : "${PORT:=8080}", URL="http://$HOST:$PORT".
func (p *Planner) fromOrigin(ev *evaluator, name string, vs varState, depth int) ([]Part, bool) {
	if depth >= maxSymDepth || len(vs.Origins) != 1 {
		return nil, false
	}
	o := vs.Origins[0]
	if o.kind != evAssign || o.note != "" {
		return nil, false
	}
	asg, pexp := p.originStmt(o, name)
	if asg == nil && pexp == nil {
		return nil, false
	}
	// In the statement, the name itself is the caller's value.
	self := forked(ev)
	self.Scope.Set(name, expand.DefaultVar[event]())
	switch {
	case asg != nil && asg.Array == nil && asg.Index == nil && !asg.Append:
		if asg.Value == nil {
			return []Part{}, true
		}
		return p.symParts(self, asg.Value.Parts, false, depth+1)
	case pexp != nil:
		return p.symParam(self, pexp, depth+1)
	}
	return nil, false
}

// originStmt finds the statement of assignment event o that set name:
// NAME=WORD, or ${NAME:=WORD}.
func (p *Planner) originStmt(o *event, name string) (*syntax.Assign, *syntax.ParamExp) {
	var file *syntax.File
	for _, pf := range p.a.parsed {
		if pf.name == o.site.File && pf.file != nil {
			file = pf.file
		}
	}
	if file == nil {
		return nil, nil
	}
	at := func(pos syntax.Pos) bool { return int(pos.Line()) == o.site.Line && int(pos.Col()) == o.site.Column }
	var asg *syntax.Assign
	var pexp *syntax.ParamExp
	syntax.Walk(file, func(n syntax.Node) bool {
		if asg != nil || pexp != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil && x.Name.Value == name && at(x.Pos()) {
				asg = x
			}
		case *syntax.ParamExp:
			if x.Param != nil && x.Param.Value == name && at(x.Pos()) {
				pexp = x
			}
		}
		return true
	})
	return asg, pexp
}

// loadedFrom says whether name's current value was read from an env
// file: loaded names the file (as its load describes it) when an env-file
// load set it; derived is set when a script assignment built it from such
// a value (OTHER="$API_KEY", URL="https://u:${API_KEY}@host").
func (p *Planner) loadedFrom(ev *evaluator, name string, depth int) (loaded string, derived bool) {
	vs, ok := ev.Scope.Get(name)
	if !ok {
		return "", false
	}
	for _, o := range vs.Origins {
		if o.kind == evLoad {
			what := o.what
			if what == "" {
				what = "an env file"
			}
			return what, false
		}
	}
	if depth >= maxSymDepth || len(vs.Origins) != 1 || vs.Origins[0].kind != evAssign {
		return "", false
	}
	asg, pexp := p.originStmt(vs.Origins[0], name)
	var n syntax.Node
	switch {
	case asg != nil && asg.Value != nil:
		n = asg.Value
	case pexp != nil && pexp.Exp != nil && pexp.Exp.Word != nil:
		n = pexp.Exp.Word
	default:
		return "", false
	}
	return "", p.nodeLoaded(ev, n, name, depth+1)
}

// nodeLoaded reports whether a word reads a variable (other than self)
// whose value was read from an env file.
func (p *Planner) nodeLoaded(ev *evaluator, n syntax.Node, self string, depth int) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if found {
			return false
		}
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value != self {
			if l, d := p.loadedFrom(ev, pe.Param.Value, depth); l != "" || d {
				found = true
			}
		}
		return !found
	})
	return found
}

// wordLoaded reports whether a word of the script reads a value read
// from an env file.
func (p *Planner) wordLoaded(ev *evaluator, w *syntax.Word, depth int) bool {
	return p.nodeLoaded(ev, w, "", depth)
}

// env fills a start's environment: exported variables the scripts set,
// env files loaded, names passed on as they are.
func (p *Planner) env(ev *evaluator, st *state, s *Start) {
	a := p.a
	files := map[string]bool{}
	all := st.Vars.All()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		vs := all[name]
		if vs.Val.Kind == expand.Unset || vs.Exp == expand.No {
			continue
		}
		var load, assign *event
		for _, o := range vs.Origins {
			switch o.kind {
			case evLoad:
				load = o
			case evAssign:
				assign = o
			}
		}
		if vs.Exp == expand.Maybe {
			continue // a shell variable the script never exported
		}
		if len(vs.Origins) > 1 {
			if at := firstSite(vs.Origins); at != nil {
				s.Unresolved = append(s.Unresolved, Note{Pos: at.Pos,
					Text: name + " is set by more than one statement, on different paths"})
			}
			continue
		}
		switch {
		case load != nil && vs.LoadExp:
			if load.unresolved {
				continue // reported with the pending loads
			}
			f := load.what
			if !filepath.IsAbs(f) {
				f = filepath.Join(a.dir, f)
			}
			if !files[f] {
				files[f] = true
				s.EnvFiles = append(s.EnvFiles, f)
			}
			if r, ok := p.exports[name]; ok && r.site.Line > 0 {
				w := p.valueWord(ev, name, r.v, varState{Val: r.v, Origins: []*event{{kind: evAssign, site: r.site}}})
				s.Env = append(s.Env, EnvSetting{Name: name, Value: w, Pos: Pos{File: r.site.File, Line: r.site.Line}, Clobbered: true})
			}
		case assign != nil:
			if vs.Val.Kind == expand.Orig && vs.Val.Str == name {
				s.Inherit = append(s.Inherit, name)
				continue
			}
			w := p.valueWord(ev, name, vs.Val, vs)
			s.Env = append(s.Env, EnvSetting{Name: name, Value: w, Pos: Pos{File: assign.site.File, Line: assign.site.Line}})
		case vs.Val.Kind == expand.Orig && vs.Val.Str == name, vs.Val.Kind == expand.Unknown && len(vs.Origins) == 0:
			// export NAME of the caller's variable
			s.Inherit = append(s.Inherit, name)
		}
	}
	for _, ev := range st.pending {
		what := "an env file that cannot be resolved statically"
		if ev.what != "" {
			what = "an env file that cannot be resolved statically (" + ev.what + ")"
		}
		s.Unresolved = append(s.Unresolved, Note{Pos: ev.site.Pos, Text: what + " is loaded into the exported environment"})
	}
}

func firstSite(evs []*event) *Site {
	if len(evs) == 0 {
		return nil
	}
	s := evs[0].site
	return &s
}

// valueWord resolves a variable's value.
func (p *Planner) valueWord(ev *evaluator, name string, v expand.Value, vs varState) Word {
	switch v.Kind {
	case expand.Literal:
		if _, derived := p.loadedFrom(ev, name, 0); derived {
			// OTHER="$API_KEY": built from a value read from an env file.
			if parts, ok := p.fromOrigin(ev, name, vs, 0); ok {
				return Word{Parts: parts}
			}
			return Word{Text: "$" + name}
		}
		return Word{Parts: []Part{{Lit: v.Str}}, Text: v.Str}
	case expand.Orig:
		return Word{Parts: []Part{{Env: v.Str}}, Text: "$" + v.Str}
	case expand.Unknown:
		if parts, ok := p.fromOrigin(ev, name, vs, 0); ok {
			return Word{Parts: parts}
		}
	}
	return Word{}
}

// Constructs walks the scripts read for readiness loops, kill cleanups and
// conditionals (construct.Find).
func (p *Planner) Constructs() []Construct {
	var out []Construct
	var pfs []*parsedFile
	for _, pf := range p.a.parsed {
		if pf.file != nil && pf.err == nil {
			pfs = append(pfs, pf)
		}
	}
	sort.Slice(pfs, func(i, j int) bool { return pfs[i].name < pfs[j].name })
	for _, pf := range pfs {
		out = append(out, construct.Find(pf.name, pf.src, pf.file)...)
	}
	return out
}
