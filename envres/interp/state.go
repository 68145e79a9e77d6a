package interp

import (
	"slices"

	"github.com/childproof/childproof/envres/internal/expand"
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
	vals map[string]expand.Value
	// note says where inside a function the change was made, when the
	// site is the function's call.
	note string
	// fill marks a fill-only load (it assigns only unset or empty names).
	fill fillMode
}

// funcDef is a function definition with the file it was defined in.
type funcDef struct {
	body *bodyRef
}

// state is the abstract state of one shell process along one path.
type state struct {
	expand.Scope[event]
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
	fs    []expand.Field
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

// fork returns a copy of s for a branch or a subshell; s must not change
// until the fork is merged or dropped.
func (s *state) fork() *state {
	c := *s
	c.Vars = expand.NewLayer(s.Vars)
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
				v = expand.DefaultVar[event]()
			}
			if !accSet {
				acc, accSet = v, true
			} else {
				acc = expand.JoinVar(acc, v)
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
