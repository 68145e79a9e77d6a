package wrapper

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// SuChanged are the names su and runuser set anew when they run a
// command without a login flag and without -m/-p: util-linux su(1),
// "the environment is not reset except HOME, SHELL, USER and LOGNAME"
// (USER and LOGNAME for a target other than root; measured: runuser -u
// sets HOME, USER and LOGNAME too, and keeps every other name).
var SuChanged = []string{"HOME", "SHELL", "USER", "LOGNAME"}

// Effect is what one wrapper does, by its manual, to the environment and
// the rc files of the command it starts. It is plain data, safe for
// concurrent use while no one changes it.
type Effect struct {
	// Prog is the wrapper's base name.
	Prog string
	// Login: a login shell runs (profile files); Interactive: an
	// interactive shell runs (rc files).
	Login, Interactive bool
	// Reset: the command starts with a fresh environment; only Keep (and
	// the names the wrapper itself sets) reach it.
	Reset bool
	// Keep are the names a Reset passes on: sudo --preserve-env=LIST and
	// sudo NAME=V, env -i NAME=V.
	Keep []string
	// Changed are names the wrapper sets anew without a Reset (su without
	// a login flag: HOME, SHELL, USER, LOGNAME).
	Changed []string
	// Unset are names env -u removes.
	Unset []string
	// Command is the index in argv where the wrapped command's argv
	// starts, -1 when the wrapper runs no command of its own (a shell
	// with -c, su -c, or nothing left).
	Command int
	// Script is the index in argv of a command string (su -c STRING,
	// su -cSTRING, --command=STRING, sh -c STRING), -1 when none; with
	// ScriptPrefix, the string is argv[Script] without that prefix.
	Script       int
	ScriptPrefix string
}

// Drops returns the protected names the wrapper drops or changes: with a
// Reset every protected name it does not Keep, else those it Changes or
// Unsets.
func (e Effect) Drops(protected []string) []string {
	var out []string
	for _, p := range protected {
		switch {
		case e.Reset && !slices.Contains(e.Keep, p),
			!e.Reset && (slices.Contains(e.Changed, p) || slices.Contains(e.Unset, p)):
			out = append(out, p)
		}
	}
	return out
}

// Rules returns the wrapper rules the effect breaks for these protected
// names: login-shell, interactive-shell, and env-reset when a protected
// name is dropped — or, with no protected name at all, when the
// environment is Reset.
func (e Effect) Rules(protected []string) []string {
	var out []string
	if e.Login {
		out = append(out, LoginShell)
	}
	if e.Interactive {
		out = append(out, InteractiveShell)
	}
	if len(protected) == 0 && e.Reset && len(e.Keep) == 0 || len(e.Drops(protected)) > 0 {
		out = append(out, EnvReset)
	}
	return out
}

// optSpec is how a transparent wrapper takes its options: the one-letter
// options that take a value, the long ones that do (without "="), and
// how many operands come before the command.
type optSpec struct {
	short    string
	long     []string
	operands int
	// operand, when set, says whether an argument is the optional
	// operand before the command (taskset's mask).
	operand func(string) bool
	// changed are the names the wrapper sets anew (setuser: USER, HOME,
	// UID); it keeps every other name.
	changed []string
	// sub, when set, is the subcommand that makes the program a wrapper
	// (pyenv exec CMD; pyenv install is none), counted as an operand.
	sub string
}

// transparent are the wrappers that start the command with the
// environment they were given (docs/lint.md cites each manual).
var transparent = sync.OnceValue(func() map[string]optSpec {
	return map[string]optSpec{
		"nohup":    {},
		"nice":     {short: "n", long: []string{"--adjustment"}},
		"ionice":   {short: "cnpPu", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
		"taskset":  {short: "", operand: func(s string) bool { return s != "" && strings.Trim(s, "0123456789abcdefABCDEFx,-:") == "" }},
		"numactl":  {short: "CNmpiPw", long: []string{"--physcpubind", "--cpunodebind", "--membind", "--preferred", "--interleave", "--preferred-many", "--weighted-interleave"}},
		"stdbuf":   {short: "ioe", long: []string{"--input", "--output", "--error"}},
		"timeout":  {short: "sk", long: []string{"--signal", "--kill-after"}, operands: 1},
		"xargs":    {short: "adEILnPs", long: []string{"--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
		"setpriv":  {long: []string{"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"}},
		"gosu":     {operands: 1},
		"su-exec":  {operands: 1},
		"chpst":    {short: "uUbe/nlLmdofcrt"},
		"chrt":     {short: "TPD", operand: func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }},
		"setsid":   {},
		"time":     {short: "fo", long: []string{"--format", "--output"}},
		"flock":    {short: "wEc", long: []string{"--timeout", "--conflict-exit-code", "--command"}, operands: 1},
		"prlimit":  {short: "p", long: []string{"--pid"}},
		"unbuffer": {}, "chronic": {}, "caffeinate": {}, "dumb-init": {}, "tini": {}, "catchsegv": {},
		"authbind": {}, "systemd-inhibit": {long: []string{"--what", "--who", "--why", "--mode"}},
		"xvfb-run":  {short: "nsfe", long: []string{"--server-num", "--server-args", "--auth-file", "--error-file"}},
		"cgexec":    {short: "g"},
		"strace":    {short: "eopsuEaXbPI"},
		"ltrace":    {short: "eopsuEaAnDl"},
		"valgrind":  {},
		"gdbserver": {operands: 1},
		"firejail":  {},
		// phusion baseimage-docker's setuser USERNAME COMMAND [args..]:
		// setuid, then os.environ USER, HOME and UID, then execvp.
		"setuser": {operands: 1, changed: []string{"USER", "HOME", "UID"}},
		// The version managers' exec, which their shims run (a pyenv
		// shim is exec "$PYENV_ROOT/libexec/pyenv" exec "$program"
		// "$@"): the program of the version selected at run time, with
		// that version's bin directory put before PATH (pyenv-exec,
		// rbenv-exec, nodenv-exec: export PATH="$BIN_PATH:$PATH").
		"pyenv": {sub: "exec", changed: []string{"PATH"}}, "rbenv": {sub: "exec", changed: []string{"PATH"}},
		"nodenv": {sub: "exec", changed: []string{"PATH"}}, "goenv": {sub: "exec", changed: []string{"PATH"}},
		"jenv": {sub: "exec", changed: []string{"PATH"}}, "plenv": {sub: "exec", changed: []string{"PATH"}},
		"phpenv": {sub: "exec", changed: []string{"PATH"}}, "asdf": {sub: "exec", changed: []string{"PATH"}},
	}
})

// IsTransparent reports whether prog (a path or base name) is a wrapper
// that keeps the environment (unless an option of its own resets it, as
// setpriv --reset-env does).
func IsTransparent(prog string) bool {
	spec, ok := transparent()[filepath.Base(prog)]
	return ok && spec.sub == ""
}

// WrapsWith reports whether prog, given first as its first argument, is a
// wrapper of the table: a transparent one, or a program whose subcommand
// first runs a command (pyenv exec, asdf exec).
func WrapsWith(prog, first string) bool {
	spec, ok := transparent()[filepath.Base(prog)]
	return ok && (spec.sub == "" || spec.sub == first)
}

// skipOptions returns the index in args of the first argument after the
// options of spec (and its operands), reading clustered one-letter
// options, values attached or separate, long options with "=" or a
// separate value, and "--".
func skipOptions(spec optSpec, args []string, empty bool) int {
	i := 0
	for i < len(args) {
		a := args[i]
		if empty && a == "" {
			return i
		}
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		i++
		if strings.HasPrefix(a, "--") {
			if !strings.Contains(a, "=") && slices.Contains(spec.long, a) {
				i++
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(spec.short, a[j]) >= 0 && a[j] != ' ' {
				if j == len(a)-1 {
					i++ // the value is the next argument
				}
				break // the rest of the cluster is the value
			}
		}
	}
	if spec.operand != nil {
		if i < len(args) && spec.operand(args[i]) {
			i++
		}
	}
	return min(i+spec.operands, len(args))
}

// Changes returns the names a transparent wrapper prog sets anew (setuser:
// USER, HOME, UID), nil for most.
func Changes(prog string) []string {
	return transparent()[filepath.Base(prog)].changed
}

// Skip returns the index in args (argv without argv[0]) where the command
// a transparent wrapper prog runs starts, and whether prog is one.
func Skip(prog string, args []string) (int, bool) {
	spec, ok := transparent()[filepath.Base(prog)]
	if !ok || spec.sub != "" && (len(args) == 0 || args[0] != spec.sub) {
		return 0, false
	}
	if spec.sub != "" {
		return 1, true
	}
	return skipOptions(spec, args, false), true
}

// Lookup returns the effect of argv when argv[0] is a wrapper — a shell,
// su, runuser, sudo, doas, env, or a transparent one — and false when it
// is not.
func Lookup(argv []string) (Effect, bool) {
	if len(argv) == 0 {
		return Effect{}, false
	}
	a0 := argv[0]
	base := filepath.Base(strings.TrimPrefix(a0, "-"))
	e := Effect{Prog: base, Command: -1, Script: -1}
	args := argv[1:]
	switch {
	case IsShell(base):
		o, n := ParseShellArgs(args)
		e.Login = o.Login || strings.HasPrefix(a0, "-")
		e.Interactive = o.Interactive
		if o.Command && n < len(args) {
			e.Script = 1 + n
		}
	case base == "su" || base == "runuser":
		o, n := ParseSuArgs(base, args)
		e.Login = o.Login
		switch {
		case o.Login:
			e.Reset = true
		case !o.Preserve:
			e.Changed = SuChanged
		}
		if o.Command >= 0 {
			e.Script = 1 + o.Command
			e.ScriptPrefix = o.CommandPrefix
		}
		if o.Direct >= 0 && o.Direct < len(args) {
			e.Command = 1 + n
		}
	case base == "sudo" || base == "doas":
		o, n := ParseSudoArgs(args)
		e.Login = o.Login
		e.Interactive = o.Shell && n >= len(args)
		e.Reset = !o.Preserve
		e.Keep = append(e.Keep, o.List...)
		for _, k := range o.Assigns {
			e.Keep = append(e.Keep, args[k][:strings.IndexByte(args[k], '=')])
		}
		if n < len(args) {
			e.Command = 1 + n
		}
	case base == "env":
		o, n := ParseEnvArgs(args)
		e.Reset, e.Keep, e.Unset = o.Ignore, o.Set, o.Unset
		if n < len(args) {
			e.Command = 1 + n
		}
	case base == "setpriv":
		n, _ := Skip(base, args)
		e.Reset = slices.Contains(args[:n], "--reset-env")
		if n < len(args) {
			e.Command = 1 + n
		}
	default:
		n, ok := Skip(base, args)
		if !ok {
			return Effect{}, false
		}
		e.Changed = Changes(base)
		if n < len(args) {
			e.Command = 1 + n
		}
	}
	return e, true
}

// EnvOptions are what env's options ask for. They are plain data, safe for
// concurrent use while no one changes them.
type EnvOptions struct {
	Ignore bool     // -i, -, --ignore-environment
	Unset  []string // -u NAME, -uNAME, --unset=NAME
	Set    []string // NAME=VALUE operands (the names)
	Chdir  string   // -C DIR, --chdir=DIR
	// Command is the start of the command when -S STRING holds it
	// (#!/usr/bin/env -S bash -l): the words of STRING after its options
	// and operands; the rest of the command follows at the returned index.
	Command []string
}

// EnvArgKind is what one of env's arguments is.
type EnvArgKind uint8

// The kinds of env arguments.
const (
	EnvCommand EnvArgKind = iota // the command starts here
	EnvIgnore                    // -i, -, --ignore-environment
	EnvUnset                     // -u NAME: Value is NAME
	EnvChdir                     // -C DIR: Value is DIR
	EnvSplit                     // -S STRING, --split-string=STRING: Value is STRING
	EnvSet                       // NAME=VALUE: Value is NAME
	EnvEnd                       // --: operands and the command follow
	EnvOption                    // another option (-0, -v, --debug …)
)

// EnvArg is one effect of an argument of env. It is plain data, safe for
// concurrent use while no one changes it.
type EnvArg struct {
	Kind  EnvArgKind
	Value string
	// Arg is the index of the argument that holds Value (the option's
	// own, or the next one for -u NAME).
	Arg int
}

// NextEnvArg reads env's argument args[i] (and, for an option that takes
// a value in the next argument, args[i+1]) in every form env accepts —
// clustered (-iu NAME), attached (-uNAME, -SSTRING), long with "=" or a
// separate value — appending its effects to out. It returns the index of
// the next argument. A NAME=VALUE operand is EnvSet; the first other
// operand is EnvCommand (next = i). After "--" (EnvEnd) only operands
// follow: the caller reads them with afterEnd set.
func NextEnvArg(args []string, i int, afterEnd bool, out []EnvArg) ([]EnvArg, int) {
	a := args[i]
	value := func(k EnvArgKind) ([]EnvArg, int) {
		if i+1 < len(args) {
			return append(out, EnvArg{k, args[i+1], i + 1}), i + 2
		}
		return append(out, EnvArg{Kind: EnvOption, Arg: i}), i + 1
	}
	switch {
	case isAssign(a):
		return append(out, EnvArg{EnvSet, a[:strings.IndexByte(a, '=')], i}), i + 1
	case afterEnd:
		return append(out, EnvArg{Kind: EnvCommand, Arg: i}), i
	case a == "--":
		return append(out, EnvArg{Kind: EnvEnd, Arg: i}), i + 1
	case a == "-" || a == "--ignore-environment":
		return append(out, EnvArg{Kind: EnvIgnore, Arg: i}), i + 1
	case a == "--unset":
		return value(EnvUnset)
	case a == "--chdir":
		return value(EnvChdir)
	case a == "--split-string":
		return value(EnvSplit)
	case strings.HasPrefix(a, "--unset="):
		return append(out, EnvArg{EnvUnset, a[len("--unset="):], i}), i + 1
	case strings.HasPrefix(a, "--chdir="):
		return append(out, EnvArg{EnvChdir, a[len("--chdir="):], i}), i + 1
	case strings.HasPrefix(a, "--split-string="):
		return append(out, EnvArg{EnvSplit, a[len("--split-string="):], i}), i + 1
	case strings.HasPrefix(a, "--"):
		return append(out, EnvArg{Kind: EnvOption, Arg: i}), i + 1
	case strings.HasPrefix(a, "-") && len(a) > 1:
		for j := 1; j < len(a); j++ {
			var k EnvArgKind
			switch a[j] {
			case 'i':
				out = append(out, EnvArg{Kind: EnvIgnore, Arg: i})
				continue
			case 'u':
				k = EnvUnset
			case 'C':
				k = EnvChdir
			case 'S':
				k = EnvSplit
			default:
				out = append(out, EnvArg{Kind: EnvOption, Arg: i})
				continue
			}
			if v := a[j+1:]; v != "" {
				return append(out, EnvArg{k, v, i}), i + 1
			}
			return value(k)
		}
		return out, i + 1
	}
	return append(out, EnvArg{Kind: EnvCommand, Arg: i}), i
}

// SplitEnvString splits the STRING of env -S as env does: on spaces and
// tabs, with '…' and "…" quoting and backslash escapes (\_ is a space,
// \c ends the string); ${NAME} is kept as written.
func SplitEnvString(s string) []string {
	var out []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\\' && i+1 < len(s) && quote != '\'':
			i++
			switch s[i] {
			case '_':
				if quote == 0 {
					if in {
						out = append(out, b.String())
					}
					b.Reset()
					in = false
					continue
				}
				b.WriteByte(' ')
			case 'c':
				if in {
					out = append(out, b.String())
				}
				return out
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(s[i])
			}
			in = true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		case c == '#' && !in:
			return out // a comment to the end
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// ParseEnvArgs reads env's options and NAME=VALUE operands (NextEnvArg),
// the words of -S STRING among them, and returns them with the index in
// args where the command starts (or where its rest follows Command).
func ParseEnvArgs(args []string) (EnvOptions, int) {
	var o EnvOptions
	i, _ := parseEnvInto(&o, args, false)
	return o, i
}

// parseEnvInto reads args into o; it returns the index where the command
// starts in args, and whether "--" was read.
func parseEnvInto(o *EnvOptions, args []string, afterEnd bool) (int, bool) {
	var effects []EnvArg
	i := 0
	for i < len(args) && len(o.Command) == 0 {
		var next int
		effects, next = NextEnvArg(args, i, afterEnd, effects[:0])
		for _, e := range effects {
			switch e.Kind {
			case EnvIgnore:
				o.Ignore = true
			case EnvUnset:
				o.Unset = append(o.Unset, e.Value)
			case EnvChdir:
				o.Chdir = e.Value
			case EnvSet:
				o.Set = append(o.Set, e.Value)
			case EnvEnd:
				afterEnd = true
			case EnvSplit:
				words := SplitEnvString(e.Value)
				k, end := parseEnvInto(o, words, afterEnd)
				afterEnd = afterEnd || end
				if k < len(words) {
					o.Command = words[k:]
				}
			case EnvCommand:
				return i, afterEnd
			}
		}
		i = next
	}
	return i, afterEnd
}

// isAssign reports whether a is NAME=VALUE with a valid shell name.
func isAssign(a string) bool {
	eq := strings.IndexByte(a, '=')
	if eq <= 0 {
		return false
	}
	for k, c := range a[:eq] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ExecOptions are what bash's exec builtin options ask for. They are plain
// data, safe for concurrent use while no one changes them.
type ExecOptions struct {
	Clear bool // -c: an empty environment
	Login bool // -l: a dash before argv[0], as login does
}

// ParseExecArgs reads exec's options (-a NAME, -aNAME, -c, -l, clustered)
// and returns them with the index in args where the command starts.
func ParseExecArgs(args []string) (ExecOptions, int) {
	var o ExecOptions
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" {
		a := args[i]
		i++
		if a == "--" {
			break
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'c':
				o.Clear = true
			case 'l':
				o.Login = true
			case 'a':
				if j == len(a)-1 {
					i++
				}
				j = len(a)
			}
		}
	}
	return o, min(i, len(args))
}

// ClassifyFor returns the wrapper rules a process with argv breaks for
// the protected names: as Classify, except that env-reset needs a
// protected name the wrapper drops (su without a login flag only changes
// HOME, SHELL, USER and LOGNAME) — or, with none, a reset.
func ClassifyFor(argv []string, protected []string) []string {
	e, ok := Lookup(argv)
	if !ok {
		return nil
	}
	return e.Rules(protected)
}
