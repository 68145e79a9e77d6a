package interp

import "slices"

// vkind is the kind of an abstract value.
type vkind uint8

const (
	vUnknown vkind = iota // any value, or not known whether set
	vUnset                // certainly unset
	vLit                  // a known string
	vOrig                 // the caller's value of the variable named in s
)

// value is the abstract value of a shell variable.
type value struct {
	Kind vkind
	Str  string
}

var unknownValue = value{Kind: vUnknown}

func lit(s string) value { return value{Kind: vLit, Str: s} }

// tri is a three-valued truth: no, yes, or maybe (after a merge).
type tri uint8

const (
	triNo tri = iota
	triYes
	triMaybe
)

// evKind says what an event did to a variable.
type evKind uint8

const (
	evAssign   evKind = iota // a plain or export assignment in the script
	evLoad                   // an env-file load
	evUnset                  // unset, env -u
	evUnexport               // export -n
)

// event is a statement that changed a variable; findings are reported at
// its site when the change reaches a worker.
type event struct {
	kind evKind
	site Site
	// what describes the load's file for messages (env-file loads).
	what string
	// file is the env file a load read (absolute), when it read one.
	file string
	// unresolved marks a load whose file could not be resolved.
	unresolved bool
	// unreadable marks an unresolved load whose path is known but whose
	// file cannot be read here (missing, or not readable).
	unreadable bool
	// vals holds the values the event gave protected variables.
	vals map[string]value
	// note says where inside a function the change was made, when the
	// site is the function's call.
	note string
	// fill marks a fill-only load (it assigns only unset or empty names).
	fill fillMode
}

// varState is what is known of one variable.
type varState struct {
	Val     value
	Exp     tri
	LoadExp bool // an env-file load exported the current value
	Origins []*event
	// earlier are changes of a protected variable that a later change
	// overwrote with another value that is not the override: reported too.
	Earlier []*event
	// w is what is known of the variable as command words, nil when
	// nothing: behind a pointer, as few variables have it and every
	// fork, merge and lookup copies a varState. Never changed in place.
	w *varWords
}

// varWords are the literal values a variable may hold as command words
// (commands.go's $SUDO and "${CMD[@]}").
type varWords struct {
	// alts are the literal values the variable has on the paths that
	// merged into an unknown value ("" for unset), when each is known;
	// nil otherwise.
	Alts []string
	// arr holds the elements of an array assigned only literal words
	// (CMD=(sudo -u app ./api)); isArr marks that it is known.
	Arr   []string
	IsArr bool
	// arrAlts are the literal arrays it holds on the paths that merged
	// into an unknown one, when each is known.
	ArrAlts [][]string
	// head holds the known leading elements of an array whose later
	// elements are not known (CMD=(vllm serve "$MODEL")): the command
	// word of "${CMD[@]}" is known. Unset when isArr.
	Head []string
}

var noWords varWords

// words returns v's command words (the zero varWords when none).
func (v varState) Words() *varWords {
	if v.w == nil {
		return &noWords
	}
	return v.w
}

// withWords returns v holding w (nil when w knows nothing).
func (v varState) WithWords(w varWords) varState {
	if w.Alts == nil && w.Arr == nil && !w.IsArr && w.ArrAlts == nil && w.Head == nil {
		v.w = nil
	} else {
		v.w = &w
	}
	return v
}

// maxAlts bounds the alternatives a variable keeps.
const maxAlts = 8

// altsOf returns the literal values v may have, and whether all are
// known: a literal, unset, or a variable the script never set (taken as
// unset: the alternatives serve command words such as $SUDO). one is
// where a single value is put, so that a merge allocates only its result.
func altsOf(v varState, one *[1]string) ([]string, bool) {
	switch {
	case v.Words().Alts != nil:
		return v.Words().Alts, true
	case v.Val.Kind == vLit:
		one[0] = v.Val.Str
		return one[:], true
	case v.Val.Kind == vUnset:
		one[0] = ""
		return one[:], true
	case v.Val.Kind == vUnknown && len(v.Origins) == 0 && v.Exp == triMaybe:
		one[0] = ""
		return one[:], true
	}
	return nil, false
}

const maxOrigins = 8

func joinOrigins(a, b []*event) []*event {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := append([]*event(nil), a...)
	for _, e := range b {
		found := false
		for _, f := range out {
			if f == e {
				found = true
				break
			}
		}
		if !found && len(out) < maxOrigins {
			out = append(out, e)
		}
	}
	return out
}

// leading returns the known leading elements of an array: all of a
// known one, the head of one known in part.
func (w *varWords) leading() []string {
	if w.IsArr {
		return w.Arr
	}
	return w.Head
}

// commonPrefix returns the elements a and b start with (nil when none).
func commonPrefix(a, b []string) []string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n == 0 {
		return nil
	}
	return a[:n:n]
}

func joinVar(a, b varState) varState {
	out := a
	aw, bw := a.Words(), b.Words()
	ow := *aw
	if a.Val != b.Val {
		out.Val = unknownValue
		ow.Alts = nil
		var oneA, oneB [1]string
		if aa, ok := altsOf(a, &oneA); ok {
			if bb, ok := altsOf(b, &oneB); ok {
				ow.Alts = append(make([]string, 0, min(len(aa)+len(bb), maxAlts)), aa...)
				for _, x := range bb {
					if !slices.Contains(ow.Alts, x) && len(ow.Alts) < maxAlts {
						ow.Alts = append(ow.Alts, x)
					}
				}
			}
		}
	}
	if aw.IsArr != bw.IsArr || !slices.Equal(aw.Arr, bw.Arr) {
		ow.Arr, ow.IsArr, ow.ArrAlts = nil, false, nil
		aa, bb := aw.ArrAlts, bw.ArrAlts
		if aw.IsArr {
			aa = [][]string{aw.Arr}
		}
		if bw.IsArr {
			bb = [][]string{bw.Arr}
		}
		if aa != nil && bb != nil {
			ow.ArrAlts = append([][]string(nil), aa...)
			for _, x := range bb {
				if !slices.ContainsFunc(ow.ArrAlts, func(y []string) bool { return slices.Equal(x, y) }) && len(ow.ArrAlts) < maxAlts {
					ow.ArrAlts = append(ow.ArrAlts, x)
				}
			}
		}
	}
	headDiffers := !slices.Equal(aw.Head, bw.Head)
	if aw.IsArr != bw.IsArr || !slices.Equal(aw.Arr, bw.Arr) || headDiffers {
		ow.Head = nil
		if !ow.IsArr {
			ow.Head = commonPrefix(aw.leading(), bw.leading())
		}
	}
	if a.Val != b.Val || aw.IsArr != bw.IsArr || !slices.Equal(aw.Arr, bw.Arr) || headDiffers {
		out = out.WithWords(ow)
	}
	if a.Exp != b.Exp {
		out.Exp = triMaybe
	}
	out.Origins = joinOrigins(a.Origins, b.Origins)
	out.Earlier = joinOrigins(a.Earlier, b.Earlier)
	out.LoadExp = a.LoadExp || b.LoadExp
	return out
}

// layer is one copy-on-write layer of variables: a fork adds a layer on
// top of its base, and a merge writes the keys its branches changed back
// into the base. Lookups walk to the bottom. A layer holds its first few
// names in a slice (most branches change one or two), then in a map.
type layer struct {
	parent *layer
	small  []layerEntry
	m      map[string]varState // all of the layer's names, once there are more than smallLayer
}

type layerEntry struct {
	name string
	vs   varState
}

// smallLayer is how many names a layer holds before it makes a map.
const smallLayer = 8

func newLayer(parent *layer) *layer { return &layer{parent: parent} }

// own returns the variable as this layer (not its parents) holds it.
func (l *layer) own(name string) (varState, bool) {
	if l.m != nil {
		v, ok := l.m[name]
		return v, ok
	}
	for i := range l.small {
		if l.small[i].name == name {
			return l.small[i].vs, true
		}
	}
	return varState{}, false
}

func (l *layer) Put(name string, v varState) {
	if l.m != nil {
		l.m[name] = v
		return
	}
	for i := range l.small {
		if l.small[i].name == name {
			l.small[i].vs = v
			return
		}
	}
	if len(l.small) < smallLayer {
		if l.small == nil {
			l.small = make([]layerEntry, 0, 2)
		}
		l.small = append(l.small, layerEntry{name, v})
		return
	}
	l.m = make(map[string]varState, 2*smallLayer)
	for _, e := range l.small {
		l.m[e.name] = e.vs
	}
	l.small = nil
	l.m[name] = v
}

// each calls f for every name this layer (not its parents) holds.
func (l *layer) Each(f func(name string, v varState)) {
	if l.m != nil {
		for k, v := range l.m {
			f(k, v)
		}
		return
	}
	for _, e := range l.small {
		f(e.name, e.vs)
	}
}

func (l *layer) Get(name string) (varState, bool) {
	for ; l != nil; l = l.parent {
		if v, ok := l.own(name); ok {
			return v, true
		}
	}
	return varState{}, false
}

// all returns every variable visible from l, innermost winning.
func (l *layer) All() map[string]varState {
	var layers []*layer
	for ; l != nil; l = l.parent {
		layers = append(layers, l)
	}
	out := map[string]varState{}
	for i := len(layers) - 1; i >= 0; i-- {
		layers[i].Each(func(k string, v varState) { out[k] = v })
	}
	return out
}

// funcDef is a function definition with the file it was defined in.
type funcDef struct {
	body *bodyRef
}

// scope is what words are evaluated against: the variables, the working
// directory and the parameters of one shell process along one path.
type scope struct {
	Vars    *layer
	Cwd     string // absolute; "" when unknown
	Args    []field
	Dollar0 string
	Source  string // BASH_SOURCE[0], absolute
	// pidVars are variables holding $!.
	PidVars map[string]bool
}

// state is the abstract state of one shell process along one path.
type state struct {
	scope
	funcs *funcTable
	chain []Pos
	// preReset holds the protected variables as they were before the
	// reset, so that what changed them earlier on the path is still
	// reported at the worker: one finding must not hide others.
	preReset map[string]varState
	// load is the env-file load being walked, if any.
	load *loadCtx
	// pending holds unresolved env-file loads not yet reported.
	pending []*event
	// bg holds background launches not yet waited for.
	bg []bgLaunch
	// lastCmd is the last external command run in the foreground.
	lastCmd *cmdRef
	// launched is the background launch made by the command being walked.
	launched *bgLaunch
	// wraps are the wrappers this process or command runs under, reported
	// only where a worker starts (wraps.go).
	wraps []wrapNote
	// The flags last, side by side: every fork copies the struct.
	allexport bool
	funcsOwn  bool // funcs may be written without copying
	dead      bool // the path ended (exec, exit)
	execd     bool // it exec'd a worker on some path (a job's worker took it over)
	returning bool // return/exit from a function or sourced file
	// reset is set in a process started with a fresh environment (env -i,
	// sudo, su): env-reset was already reported, protected checks are off.
	reset bool
	// loaded is set once an env-file load happened on this path.
	loaded bool
	// subshell is set in a forked subshell (its end is not a worker point).
	subshell bool
	// fgChild marks a child process run in the foreground (bash F, su -c
	// …): its last command is the worker only if its caller ends next, so
	// its wrappers are handed to the caller's last command.
	fgChild bool
}

type bgLaunch struct {
	site   Site
	nohup  bool
	forked bool // setsid -f
	// wraps are the wrappers the command started under: reported with
	// it when it may be the worker (the process ends, or waits for it),
	// dropped when the process execs its worker after it.
	wraps []wrapNote
	// orphan: launched by a subshell that ended (( cmd & )): no wait of
	// this process reaches it.
	orphan bool
	// before is the process's last foreground command when it was
	// launched: a later one that stays is the worker (endBg).
	before *cmdRef
	// pidVar is the variable the script keeps its pid in (PID=$!);
	// managed marks a launch the script kills (bgpid.go).
	pidVar  string
	managed bool
}

// cmdRef is an external command, for the all-interfaces check.
type cmdRef struct {
	site  Site
	name  string // the program's base name, when known
	binds []Bind // arguments that bind all interfaces
	// fs, fc, mode and nohup describe the command for Plan (plan.go).
	fs    []field
	fc    *fileCtx
	mode  callMode
	nohup bool
	// wraps are the wrappers the command runs under; returns marks a
	// program known to run and return (wraps.go); wrapOnly marks the last
	// command of a foreground child handed to its caller for its wrappers.
	wraps    []wrapNote
	returns  bool
	wrapOnly bool
}

// loadCtx marks that the statements being walked come from an env file.
type loadCtx struct {
	ev        *event
	exportAll bool
	fill      fillMode
}

func (s *scope) Get(name string) (varState, bool) { return s.Vars.Get(name) }

func (s *scope) Set(name string, v varState) { s.Vars.Put(name, v) }

// fork returns a copy of s for a branch or a subshell; s must not change
// until the fork is merged or dropped.
func (s *state) fork() *state {
	c := *s
	c.Vars = newLayer(s.Vars)
	c.funcsOwn = false
	c.pending = s.pending[:len(s.pending):len(s.pending)]
	c.bg = s.bg[:len(s.bg):len(s.bg)]
	c.chain = s.chain[:len(s.chain):len(s.chain)]
	c.wraps = s.wraps[:len(s.wraps):len(s.wraps)]
	if s.PidVars != nil {
		c.PidVars = s.PidVars
	}
	return &c
}

// funcTable holds the functions defined on a path; it is shared by forks
// until one of them defines a function, so that merges compare pointers.
type funcTable struct {
	m map[string]*funcDef
}

func (t *funcTable) get(name string) *funcDef {
	if t == nil {
		return nil
	}
	return t.m[name]
}

func (t *funcTable) copyMap() map[string]*funcDef {
	m := map[string]*funcDef{}
	if t != nil {
		for k, v := range t.m {
			m[k] = v
		}
	}
	return m
}

func (s *state) defineFunc(name string, f *funcDef) {
	if s.funcs.get(name) == f {
		return
	}
	if !s.funcsOwn {
		s.funcs = &funcTable{m: s.funcs.copyMap()}
		s.funcsOwn = true
	}
	s.funcs.m[name] = f
}

func (s *scope) MarkPid(name string, on bool) {
	if !on && !s.PidVars[name] {
		return
	}
	m := make(map[string]bool, len(s.PidVars)+1)
	for k, v := range s.PidVars {
		m[k] = v
	}
	if on {
		m[name] = true
	} else {
		delete(m, name)
	}
	s.PidVars = m
}

// merge joins the branches (forks of s) back into s.
func (s *state) merge(branches ...*state) {
	var alive []*state
	for _, b := range branches {
		if !b.dead {
			alive = append(alive, b)
		}
	}
	for _, b := range branches {
		s.execd = s.execd || b.execd
	}
	if len(alive) == 0 {
		s.dead = true
		// keep findings-relevant lists from the dead branches out: they
		// were reported at their own process ends.
		return
	}
	first := alive[0]
	// Variables: the keys written in any branch's top layer.
	// (The order does not matter: each key is joined on its own.)
	var keys []string
	var keySet map[string]bool // once there are many
	for _, b := range alive {
		b.Vars.Each(func(k string, _ varState) {
			switch {
			case keySet != nil:
				if keySet[k] {
					return
				}
				keySet[k] = true
			case len(keys) >= 16:
				keySet = make(map[string]bool, 2*len(keys))
				for _, x := range keys {
					keySet[x] = true
				}
				if keySet[k] {
					return
				}
				keySet[k] = true
			case slices.Contains(keys, k):
				return
			}
			keys = append(keys, k)
		})
	}
	for _, k := range keys {
		var acc varState
		accSet := false
		for _, b := range alive {
			v, ok := b.Get(k)
			if !ok {
				v = defaultVar()
			}
			if !accSet {
				acc, accSet = v, true
			} else {
				acc = joinVar(acc, v)
			}
		}
		s.Set(k, acc)
	}
	s.allexport = false
	s.loaded = false
	s.returning = false
	for _, b := range alive {
		s.allexport = s.allexport || b.allexport
		s.loaded = s.loaded || b.loaded
	}
	// All alive branches returning means the function returns here.
	allRet := true
	for _, b := range alive {
		if !b.returning {
			allRet = false
		}
	}
	s.returning = allRet
	s.Cwd = first.Cwd
	for _, b := range alive[1:] {
		if b.Cwd != s.Cwd {
			s.Cwd = ""
		}
	}
	if first.funcs != s.funcs {
		s.funcs, s.funcsOwn = first.funcs, false
	}
	for _, b := range alive[1:] {
		if b.funcs == nil || b.funcs == s.funcs {
			continue
		}
		m := s.funcs.copyMap()
		for k, v := range b.funcs.m {
			m[k] = v
		}
		s.funcs, s.funcsOwn = &funcTable{m: m}, true
	}
	s.pending = first.pending
	s.bg = first.bg
	for _, b := range alive[1:] {
		s.pending = joinEvents(s.pending, b.pending)
		s.bg = joinBg(s.bg, b.bg)
	}
	s.lastCmd = first.lastCmd
	for _, b := range alive[1:] {
		if b.lastCmd != nil && s.lastCmd == nil {
			s.lastCmd = b.lastCmd
		}
	}
	s.PidVars = first.PidVars
	for _, b := range alive[1:] {
		for k := range b.PidVars {
			if !s.PidVars[k] {
				s.MarkPid(k, true)
			}
		}
	}
	s.Args = first.Args
}

const maxPending = 64

func joinEvents(a, b []*event) []*event {
	out := a[:len(a):len(a)]
	for _, e := range b {
		found := false
		for _, f := range a {
			if f == e {
				found = true
				break
			}
		}
		if !found && len(out) < maxPending {
			out = append(out, e)
		}
	}
	return out
}

func joinBg(a, b []bgLaunch) []bgLaunch {
	out := a[:len(a):len(a)]
	for _, e := range b {
		found := false
		for _, f := range a {
			if f.site.File == e.site.File && f.site.Line == e.site.Line && f.site.Column == e.site.Column {
				found = true
				break
			}
		}
		if !found && len(out) < maxPending {
			out = append(out, e)
		}
	}
	return out
}

// defaultVar is what an untracked name is: set or not by the caller,
// maybe exported.
func defaultVar() varState { return varState{Val: unknownValue, Exp: triMaybe} }
