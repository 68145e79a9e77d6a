package progs

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An activation runs scripts that this lint does not follow (conda's
// activate.d, Lmod's modulefiles, direnv's .envrc, a venv's bin/activate)
// and that can set any name: env-activate reports it, naming the
// mechanism and the protected names it could override.

// ActivationCmd returns the mechanism a simple command activates, or "".
func ActivationCmd(fs []Arg) string {
	if len(fs) == 0 || !fs[0].Known {
		return ""
	}
	arg := func(i int) string { return word(fs, i) }
	switch base := filepath.Base(fs[0].S); base {
	case "conda", "mamba", "micromamba":
		if arg(1) == "activate" {
			return base + " activate"
		}
	case "module":
		switch arg(1) {
		case "load", "add", "swap", "switch", "sw", "restore", "unload", "rm", "purge", "reset", "use":
			return "module " + arg(1)
		}
	case "ml":
		switch a1 := arg(1); {
		case len(fs) < 2:
		case a1 == "list", a1 == "avail", a1 == "av", a1 == "spider", a1 == "show", a1 == "help", a1 == "whatis", a1 == "keyword", a1 == "save", a1 == "savelist", a1 == "-h", a1 == "--help":
		default:
			return "ml (Lmod module load)"
		}
	case "spack":
		if arg(1) == "load" {
			return "spack load"
		}
		if arg(1) == "env" && arg(2) == "activate" {
			return "spack env activate"
		}
	case "pyenv":
		if arg(1) == "activate" {
			return "pyenv activate"
		}
	case "workon":
		return "workon (virtualenvwrapper)"
	}
	return ""
}

// ActivationRunner returns the mechanism of a wrapper that activates an
// environment and then runs the rest of the line (conda run -n ENV CMD),
// and the index of the rest; "" when fs is not one.
func ActivationRunner(fs []Arg) (string, int) {
	if len(fs) < 2 || !fs[0].Known || !fs[1].Known {
		return "", 0
	}
	base := filepath.Base(fs[0].S)
	switch {
	case (base == "conda" || base == "mamba" || base == "micromamba") && fs[1].S == "run":
		i := 2
		for i < len(fs) && fs[i].Known && strings.HasPrefix(fs[i].S, "-") {
			switch fs[i].S {
			case "-n", "--name", "-p", "--prefix", "--cwd", "-e":
				i++
			}
			i++
		}
		return base + " run", min(i, len(fs))
	case base == "direnv" && fs[1].S == "exec":
		return "direnv exec", min(3, len(fs))
	}
	return "", 0
}

// ActivationEval returns the call, and its mechanism as "TOOL ARG", when
// an eval's command substitution prints a tool's activation code: eval "$(conda shell.bash hook)",
// eval "$(direnv export bash)", eval "$(pyenv init -)", eval $(opam env).
//
// Any prefix inside the substitution counts: eval "$(cd "$DIR" && direnv
// export bash)", eval "$(command direnv export bash 2>/dev/null)", a
// pipeline, a full path: the first command of the substitution that is
// such a tool decides.
func ActivationEval(stmts []*syntax.Stmt) (*syntax.CallExpr, string) {
	var found *syntax.CallExpr
	mech := ""
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if found != nil {
				return false
			}
			call, ok := n.(*syntax.CallExpr)
			if !ok {
				return true
			}
			if m := activationCall(call); m != "" {
				found, mech = call, m
				return false
			}
			return true
		})
	}
	return found, mech
}

// activationCall returns the mechanism ("TOOL ARG") when call runs a tool
// that prints activation code, looking past command, builtin and env
// prefixes.
func activationCall(call *syntax.CallExpr) string {
	args := call.Args
	for len(args) > 0 {
		switch w := filepath.Base(args[0].Lit()); {
		case w == "command" || w == "builtin" || w == "exec":
			args = args[1:]
			continue
		case w == "env":
			args = args[1:]
			for len(args) > 0 && (strings.HasPrefix(args[0].Lit(), "-") || strings.Contains(args[0].Lit(), "=")) {
				args = args[1:]
			}
			continue
		}
		break
	}
	if len(args) < 2 {
		return ""
	}
	base := filepath.Base(args[0].Lit())
	a1 := args[1].Lit()
	ok := false
	switch base {
	case "conda", "mamba", "micromamba":
		ok = strings.HasPrefix(a1, "shell")
	case "direnv":
		ok = a1 == "export"
	case "pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "phpenv":
		ok = a1 == "init" || a1 == "virtualenv-init" || a1 == "sh-activate"
	case "fnm", "opam":
		ok = a1 == "env"
	case "mise", "rtx":
		ok = a1 == "activate" || a1 == "env"
	case "modulecmd":
		ok = true
	case "spack":
		ok = a1 == "load" || a1 == "env"
	}
	if !ok {
		return ""
	}
	return base + " " + a1
}

// ActivatePath reports whether a sourced path is an activation script:
// a virtualenv's bin/activate, conda's old "source activate ENV".
func ActivatePath(p string) bool {
	b := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		b = p[i+1:]
	}
	return b == "activate" || b == "activate.sh" || b == "activate.bash"
}
