package wrapper

import "strings"

// SudoOptions are what sudo's (or doas's) options ask for.
type SudoOptions struct {
	Login    bool     // -i, --login: the target user's login shell runs the command
	Preserve bool     // -E, --preserve-env: the caller's environment is kept
	List     []string // --preserve-env=A,B: only these names are kept
	HasList  bool     // a --preserve-env=LIST was given
	Assigns  []int    // the indexes in args of NAME=VALUE arguments, passed to the command
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

// SuOptions are what su's or runuser's options ask for.
type SuOptions struct {
	Login    bool // -, -l, --login: a login shell, with a reset environment
	Preserve bool // -m, -p, --preserve-environment
	// Command is the index in args of -c's or --command's string, -1 when
	// there is none; with CommandInline, of the --command=STRING argument.
	Command       int
	CommandInline bool
	// Direct is the index in args where runuser -u USER's command starts,
	// -1 when there is none.
	Direct int
}

// ParseSuArgs reads the options of su or runuser (prog, a base name) and
// returns them with the index in args where reading stopped: the end, a
// runuser -u command, or an empty string (a caller that cannot read an
// argument statically passes "" for it). Other operands are the user.
func ParseSuArgs(prog string, args []string) (SuOptions, int) {
	o := SuOptions{Command: -1, Direct: -1}
	i := 0
	for i < len(args) && args[i] != "" {
		a := args[i]
		switch {
		case a == "-" || a == "-l" || a == "--login":
			o.Login = true
			i++
		case a == "-m" || a == "-p" || a == "--preserve-environment":
			o.Preserve = true
			i++
		case a == "-c" || a == "--command":
			if i+1 < len(args) {
				o.Command, o.CommandInline = i+1, false
			}
			i += 2
		case strings.HasPrefix(a, "--command="):
			o.Command, o.CommandInline = i, true
			i++
		case a == "-u" && prog == "runuser":
			i += 2
			if i < len(args) && args[i] == "--" {
				i++
			}
			o.Direct = min(i, len(args))
			return o, o.Direct
		case a == "-s" || a == "--shell" || a == "-g" || a == "--group" || a == "-G" || a == "--supp-group" || a == "-w" || a == "--whitelist-environment":
			i += 2
		case a == "--":
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for _, c := range a[1:] {
				switch c {
				case 'l':
					o.Login = true
				case 'm', 'p':
					o.Preserve = true
				}
			}
			i++
		default:
			i++ // the user
		}
	}
	return o, i
}
