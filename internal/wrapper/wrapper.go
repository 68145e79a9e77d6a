package wrapper

import (
	"path/filepath"
	"strings"
)

// The wrapper rules: the names forbid_wrappers takes, the lint rules of
// the same names, and the problems live verification reports.
const (
	LoginShell       = "login-shell"
	InteractiveShell = "interactive-shell"
	EnvReset         = "env-reset"
)

// Rules are the wrapper rule names, in their documented order.
var Rules = []string{LoginShell, InteractiveShell, EnvReset}

// IsRule reports whether name is a wrapper rule.
func IsRule(name string) bool {
	for _, r := range Rules {
		if r == name {
			return true
		}
	}
	return false
}

// IsShell reports whether prog (a path or base name) is a shell: bash, sh,
// dash, zsh, ksh, mksh, ash, posh or yash.
func IsShell(prog string) bool {
	switch filepath.Base(prog) {
	case "bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "posh", "yash":
		return true
	}
	return false
}

// IsPOSIXShell reports whether prog is a plain POSIX shell (sh, dash, ash,
// posh), which reads no rc file of bash's.
func IsPOSIXShell(prog string) bool {
	switch filepath.Base(prog) {
	case "sh", "dash", "ash", "posh":
		return true
	}
	return false
}

// ShellOptions are what a shell's options ask for. They are plain data,
// safe for concurrent use while no one changes them.
type ShellOptions struct {
	Login       bool // -l, --login: profile files run
	Interactive bool // -i: rc files run
	Command     bool // -c: the first operand is a command string, not a script
	AllExport   bool // -a: every variable assigned is exported
}

// ParseShellArgs reads the options of a shell's arguments (argv without
// argv[0]) as bash, sh and the other shells do: clusters of one-letter
// options ("-lic"), "+" clusters that turn them off, -o/-O and --rcfile
// with a value, other long options, up to the first operand or "--" / "-".
// It returns the options and the index in args of the first operand,
// which is past the end when the last option wants a value it lacks. An
// empty string is an operand: a caller that cannot read an argument
// statically passes "" for it.
func ParseShellArgs(args []string) (ShellOptions, int) {
	var o ShellOptions
	i := 0
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			return o, i + 1
		case strings.HasPrefix(a, "--"):
			switch a {
			case "--login":
				o.Login = true
			case "--interactive": // zsh, yash
				o.Interactive = true
			case "--rcfile", "--init-file":
				i++
			}
			i++
		case strings.HasPrefix(a, "+") && len(a) > 1:
			i++
			if a == "+o" || a == "+O" {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			i++
			for _, c := range a[1:] {
				switch c {
				case 'l':
					o.Login = true
				case 'i':
					o.Interactive = true
				case 'c':
					o.Command = true
				case 'a':
					o.AllExport = true
				case 'o', 'O':
					i++
				}
			}
		default:
			return o, i
		}
	}
	return o, i
}

// Classify returns the wrapper rules a process with argv breaks when no
// name is protected: a shell started as a login (argv[0] "-bash", -l,
// --login) or interactive (-i) shell, and the wrappers of Lookup that
// reset the environment or start a login shell (ClassifyFor).
func Classify(argv []string) []string { return ClassifyFor(argv, nil) }
