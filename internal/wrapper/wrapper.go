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

// Classify returns the wrapper rules a process with argv breaks: a shell
// started as a login (argv[0] "-bash", -l, --login) or interactive (-i)
// shell, and su, runuser and sudo, which reset the environment (sudo keeps
// it with -E or --preserve-env) and may start a login shell.
func Classify(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	var out []string
	a0 := argv[0]
	base := filepath.Base(strings.TrimPrefix(a0, "-"))
	switch {
	case IsShell(base):
		login := strings.HasPrefix(a0, "-")
		inter := false
	args:
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			switch {
			case a == "--":
				break args
			case a == "--login":
				login = true
			case a == "--noprofile", a == "--norc", a == "--posix", a == "--noediting", a == "--restricted", a == "--verbose":
			case a == "--rcfile", a == "--init-file":
				i++
			case strings.HasPrefix(a, "--"):
			case a == "-o" || a == "+o" || a == "-O" || a == "+O":
				i++
			case strings.HasPrefix(a, "-") && len(a) > 1:
				if strings.Contains(a[1:], "l") {
					login = true
				}
				if strings.Contains(a[1:], "i") {
					inter = true
				}
				if strings.Contains(a[1:], "c") {
					break args
				}
			case strings.HasPrefix(a, "+"):
			default:
				break args
			}
		}
		if login {
			out = append(out, LoginShell)
		}
		if inter {
			out = append(out, InteractiveShell)
		}
	case base == "su" || base == "runuser":
		out = append(out, EnvReset)
		for _, a := range argv[1:] {
			if a == "-" || a == "-l" || a == "--login" {
				out = append(out, LoginShell)
				break
			}
		}
	case base == "sudo":
		keep := false
		for _, a := range argv[1:] {
			if a == "-E" || strings.HasPrefix(a, "--preserve-env") {
				keep = true
			}
			if a == "-i" || a == "--login" {
				out = append(out, LoginShell)
			}
		}
		if !keep {
			out = append(out, EnvReset)
		}
	}
	return out
}
