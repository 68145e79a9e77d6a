package wrapper

import (
	"slices"
	"strings"
)

// SudoOptions are what sudo's (or doas's) options ask for. They are plain
// data, safe for concurrent use while no one changes them.
type SudoOptions struct {
	Login    bool     // -i, --login: the target user's login shell runs the command
	Preserve bool     // -E, --preserve-env: the caller's environment is kept
	List     []string // --preserve-env=A,B: only these names are kept
	HasList  bool     // a --preserve-env=LIST was given
	Assigns  []int    // the indexes in args of NAME=VALUE arguments, passed to the command
	Shell    bool     // -s, --shell: $SHELL runs the command (with -c), or interactively without one
}

// sudoValue are sudo's one-letter options that take a value.
const sudoValue = "ugCDhprtUT"

// ParseSudoArgs reads sudo's options (argv without argv[0]) up to the
// command and returns them with the index in args where the command
// starts (past the end when the last option wants a value it lacks). A
// NAME=VALUE before the command is an assignment; an empty
// string is the command (a caller that cannot read an argument statically
// passes "" for it).
func ParseSudoArgs(args []string) (SudoOptions, int) {
	var o SudoOptions
	i := 0
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			return o, i + 1
		case a == "-E" || a == "--preserve-env":
			o.Preserve = true
			i++
		case strings.HasPrefix(a, "--preserve-env="):
			o.HasList = true
			o.List = append(o.List, strings.Split(strings.TrimPrefix(a, "--preserve-env="), ",")...)
			i++
		case a == "-i" || a == "--login":
			o.Login = true
			i++
		case a == "-s" || a == "--shell":
			o.Shell = true
			i++
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") {
				switch a {
				case "--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--command-timeout", "--close-from":
					i++
				}
			}
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
			i++
			for j, c := range a[1:] {
				switch c {
				case 'E':
					o.Preserve = true
				case 'i':
					o.Login = true
				case 's':
					o.Shell = true
				}
				if strings.ContainsRune(sudoValue, c) {
					if j == len(a)-2 {
						i++ // the value is the next argument
					}
					break
				}
			}
		case !strings.HasPrefix(a, "-") && strings.IndexByte(a, '=') > 0:
			o.Assigns = append(o.Assigns, i)
			i++
		default:
			return o, i
		}
	}
	return o, i
}

// SuOptions are what su's or runuser's options ask for. They are plain
// data, safe for concurrent use while no one changes them.
type SuOptions struct {
	Login    bool // -, -l, --login: a login shell, with a reset environment
	Preserve bool // -m, -p, --preserve-environment
	// Command is the index in args of the argument holding -c's or
	// --command's string, -1 when there is none; CommandPrefix is what
	// precedes the string in that argument ("-c" in -cSTRING, "-lc" in
	// -lcSTRING, "--command=" in --command=STRING; "" when the string is
	// the whole argument).
	Command       int
	CommandPrefix string
	// Direct is the index in args where runuser -u USER's command starts,
	// -1 when there is none.
	Direct int
}

// suValue are su's and runuser's one-letter options that take a value
// (util-linux: "c:fg:G:lmpPs:u:hVw:"; u is runuser's).
const suValue = "cgGsuw"

// suLongValue are their long options that take a value.
var suLongValue = []string{"--command", "--session-command", "--group", "--supp-group", "--shell", "--whitelist-environment", "--user"}

// ParseSuArgs reads the options of su or runuser (prog, a base name) as
// getopt_long does — clustered (-lc), values attached (-c"CMD", -s/bin/sh)
// or separate, long options with "=" or a separate value, "--", options
// after the user (GNU permutes) — and returns them with the index in args
// where reading stopped: the end or a runuser -u command. A caller that
// cannot read an argument statically passes "" for it: by the manual's
// grammar (su [options] [-] [user [argument...]]) such a word is an
// operand — the user, an argument for the shell, or runuser -u's command —
// and the options after it are still read (su - "$APP_USER" -c CMD).
func ParseSuArgs(prog string, args []string) (SuOptions, int) {
	o := SuOptions{Command: -1, Direct: -1}
	user := false // runuser -u USER was given
	i := 0
	for i < len(args) {
		a := args[i]
		switch {
		case a == "-":
			o.Login = true
			i++
		case a == "--":
			i++
			if user {
				o.Direct = min(i, len(args))
				return o, o.Direct
			}
			return o, len(args) // the rest are the user and the shell's arguments
		case strings.HasPrefix(a, "--"):
			name, val, eq := strings.Cut(a, "=")
			switch name {
			case "--login":
				o.Login = true
			case "--preserve-environment":
				o.Preserve = true
			case "--command", "--session-command":
				switch {
				case eq:
					o.Command, o.CommandPrefix = i, name+"="
				case i+1 < len(args):
					o.Command, o.CommandPrefix = i+1, ""
				}
			case "--user":
				user = user || prog == "runuser"
			}
			_ = val
			i++
			if !eq && slices.Contains(suLongValue, name) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			i++
			for j := 1; j < len(a); j++ {
				c := a[j]
				switch c {
				case 'l':
					o.Login = true
				case 'm', 'p':
					o.Preserve = true
				}
				if strings.IndexByte(suValue, c) < 0 || c == 'u' && prog != "runuser" {
					continue
				}
				attached := j < len(a)-1
				if c == 'c' {
					if attached {
						o.Command, o.CommandPrefix = i-1, a[:j+1]
					} else if i < len(args) {
						o.Command, o.CommandPrefix = i, ""
					}
				}
				if c == 'u' {
					user = true
				}
				if !attached {
					i++
				}
				break
			}
		default:
			if user {
				// runuser -u USER COMMAND…: every operand is the command.
				o.Direct = i
				return o, i
			}
			i++ // the user, or an argument for the shell
		}
	}
	if user && o.Direct < 0 {
		o.Direct = min(i, len(args))
		return o, o.Direct
	}
	return o, i
}
