package interp

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An activation runs scripts that this lint does not follow (conda's
// activate.d, Lmod's modulefiles, direnv's .envrc, a venv's bin/activate)
// and that can set any name: env-activate reports it, naming the
// mechanism and the protected names it could override.

// activationCmd returns the mechanism a simple command activates, or "".
func activationCmd(fs []field) string {
	if len(fs) == 0 || !fs[0].Known {
		return ""
	}
	arg := func(i int) string {
		if i < len(fs) && fs[i].Known {
			return fs[i].Str
		}
		return ""
	}
	switch base := filepath.Base(fs[0].Str); base {
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

// activationRunner returns the mechanism of a wrapper that activates an
// environment and then runs the rest of the line (conda run -n ENV CMD),
// and the rest; "" when fs is not one.
func activationRunner(fs []field) (string, []field) {
	if len(fs) < 2 || !fs[0].Known || !fs[1].Known {
		return "", nil
	}
	base := filepath.Base(fs[0].Str)
	switch {
	case (base == "conda" || base == "mamba" || base == "micromamba") && fs[1].Str == "run":
		i := 2
		for i < len(fs) && fs[i].Known && strings.HasPrefix(fs[i].Str, "-") {
			switch fs[i].Str {
			case "-n", "--name", "-p", "--prefix", "--cwd", "-e":
				i++
			}
			i++
		}
		return base + " run", fs[min(i, len(fs)):]
	case base == "direnv" && fs[1].Str == "exec":
		return "direnv exec", fs[min(3, len(fs)):]
	}
	return "", nil
}

// activationEval returns the mechanism when an eval's command substitution
// prints a tool's activation code: eval "$(conda shell.bash hook)",
// eval "$(direnv export bash)", eval "$(pyenv init -)", eval $(opam env).
//
// Any prefix inside the substitution counts: eval "$(cd "$DIR" && direnv
// export bash)", eval "$(command direnv export bash 2>/dev/null)", a
// pipeline, a full path: the first command of the substitution that is
// such a tool decides.
func activationEval(stmts []*syntax.Stmt) string {
	found := ""
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if found != "" {
				return false
			}
			call, ok := n.(*syntax.CallExpr)
			if !ok {
				return true
			}
			if m := activationCall(call); m != "" {
				found = m
				return false
			}
			return true
		})
	}
	return found
}

// activationCall returns the mechanism when call runs a tool that prints
// activation code, looking past command, builtin and env prefixes.
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
	if t := nodeText(call); t != "" {
		return t
	}
	return base + " " + a1
}

// nodeText prints a node as shell source, on one line, for messages.
func nodeText(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n); err != nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}

// activatePath reports whether a sourced path is an activation script:
// a virtualenv's bin/activate, conda's old "source activate ENV".
func activatePath(p string) bool {
	b := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		b = p[i+1:]
	}
	return b == "activate" || b == "activate.sh" || b == "activate.bash"
}

// reportActivation records an activation at s (env-activate reports it).
func (a *analyzer) reportActivation(s Site, mechanism string) {
	a.pass.Activations = fact(a.pass.Activations, Activation{At: s, Mechanism: mechanism})
}
