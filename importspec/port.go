package importspec

import (
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/childproof/childproof/envres"
)

// portInfo is the port block read from the worker's arguments.
type portInfo struct {
	n        int
	number   string // HCL expression
	address  string
	allowAll bool
}

// Flags that name the worker's port or bind address.
var (
	portFlags = map[string]bool{"--port": true, "-p": true, "--http-port": true, "--listen-port": true, "--server-port": true}
	addrFlags = map[string]bool{"--addr": true, "--address": true, "--bind": true, "-b": true, "--listen": true,
		"--listen-addr": true, "--listen-address": true, "--http-addr": true, "--web.listen-address": true}
	hostFlags = map[string]bool{"--host": true, "-H": true, "--bind-address": true}
)

// flagValue splits an argument into a flag and its value: "--port=8080",
// or "--port" followed by the next argument.
func flagValue(argv []envres.Word, i int) (flag string, val envres.Word, ok bool) {
	w := argv[i]
	if !w.Resolved() || len(w.Parts) == 0 || w.Parts[0].Env != "" || !strings.HasPrefix(w.Parts[0].Lit, "-") {
		return "", envres.Word{}, false
	}
	first := w.Parts[0].Lit
	if j := strings.IndexByte(first, '='); j > 0 {
		rest := append([]envres.Part{{Lit: first[j+1:]}}, w.Parts[1:]...)
		return first[:j], envres.Word{Parts: rest, Text: w.Text}, true
	}
	if len(w.Parts) != 1 || i+1 >= len(argv) {
		return "", envres.Word{}, false
	}
	return first, argv[i+1], true
}

// sample returns a word's value with each caller variable at its default,
// and the variables used; ok is false when a variable has no default.
func sample(w envres.Word) (s string, envs []envres.Part, ok bool) {
	if !w.Resolved() {
		return "", nil, false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		if p.Env == "" {
			b.WriteString(p.Lit)
			continue
		}
		if !p.HasDefault {
			return "", nil, false
		}
		envs = append(envs, p)
		b.WriteString(p.Default)
	}
	return b.String(), envs, true
}

// findPort reads the port block from the worker's arguments: --port N,
// -p N, --addr/--bind/--listen HOST:PORT, --host H.
func (b *builder) findPort(w *envres.Start) *portInfo {
	var portW, addrW, hostW *envres.Word
	for i := 1; i < len(w.Argv); i++ {
		flag, val, ok := flagValue(w.Argv, i)
		if !ok {
			continue
		}
		v := val
		switch {
		case portFlags[flag]:
			portW = &v
		case addrFlags[flag]:
			addrW = &v
		case hostFlags[flag]:
			hostW = &v
		}
	}
	if portW == nil && (addrW == nil || !hostPort(*addrW)) {
		// No --port, and no HOST:PORT address: the port may still be an
		// argument of its own anywhere ("--bind 127.0.0.1 "${PORT:-8000}"").
		if v, what := positionalPort(w.Argv); v != nil && (what == "port" || addrW == nil) {
			if what == "address" {
				addrW = v
			} else {
				portW = v
			}
			b.note(secPort, w.Pos, false, "the worker's port is its argument %s (%s, not a --port flag)", v.Text, what)
		}
	}
	var number, host string
	hostKnown := false
	var numberEnvs []envres.Part
	bad := func(what string, v *envres.Word) {
		b.note(secPort, w.Pos, true, "the worker's %s (%s) cannot be resolved statically: write the port block by hand", what, v.Text)
	}
	if addrW != nil {
		s, envs, ok := sample(*addrW)
		if !ok {
			bad("address", addrW)
		} else {
			if i := strings.Index(s, "://"); i >= 0 {
				s = s[i+3:]
			}
			s = strings.TrimSuffix(s, "/")
			if h, p, err := net.SplitHostPort(s); err == nil {
				host, hostKnown, number, numberEnvs = h, true, p, envs
			} else {
				host, hostKnown = strings.Trim(s, "[]"), true
			}
		}
	}
	if hostW != nil {
		if s, _, ok := sample(*hostW); ok {
			host, hostKnown = s, true
		} else {
			bad("host", hostW)
		}
	}
	if portW != nil {
		if s, envs, ok := sample(*portW); ok {
			number, numberEnvs = s, envs
		} else {
			bad("port", portW)
		}
	}
	n, err := strconv.Atoi(number)
	if err != nil || n < 1 || n > 65535 {
		if number == "" && addrW == nil && portW == nil {
			if v := numericVarArg(w.Argv); v != nil {
				// "${LISTEN:-8000}" on its own: likely the port, under a
				// name that does not say so; a spec without it would be
				// verified before the worker listens.
				b.note(secPort, w.Pos, true, "a human must finish this: the worker's argument %s is a caller variable with a numeric default, likely its port: add the port block it listens on (number = the variable's value), or nothing if it is not a port", v.Text)
			} else if interpreterWorker(w) {
				// The worker is selected as the port's owner (its comm is
				// the interpreter's): without a port the spec cannot find
				// it, and "verified" would come before it listens.
				b.note(secPort, w.Pos, true, "a human must finish this: the worker is run by an interpreter and no port was found in its arguments (a flag, a positional port, $PORT, HOST:PORT): add the port block it listens on, or worker { exe = ... } if it listens on none")
			} else {
				b.note(secPort, envres.Pos{}, false, "no port in the worker's arguments (--port, -p, --addr, --bind, --listen, a positional port, $PORT, HOST:PORT): add a port block if it listens; without one no port is checked")
			}
		} else if number != "" {
			b.note(secPort, w.Pos, true, "the worker's port %q is not a number from 1 to 65535: write the port block by hand", number)
		} else if addrW != nil && portW == nil {
			// A bind address without a port, and no port found: the
			// worker listens somewhere the spec cannot name, and a spec
			// without its port would be "verified" before it listens.
			b.note(secPort, w.Pos, true, "a human must finish this: the worker binds %s but no port was found in its arguments (a flag, a positional port, $PORT, HOST:PORT): add the port block it listens on", addrW.Text)
		}
		return nil
	}
	pi := &portInfo{n: n, number: strconv.Itoa(n)}
	for _, e := range numberEnvs {
		if e.Default == number {
			// ${PORT:-8080}: a spec variable, set with --var port=N.
			b.vars[e.Env] = b.portVar
			b.varDefault[b.portVar] = pi.number
			pi.number = "var." + b.portVar
			b.note(secPort, w.Pos, false, "the script reads the port from $%s (default %s): here it is the variable %s, set with --var %s=N", e.Env, e.Default, b.portVar, b.portVar)
			break
		}
	}
	switch {
	case !hostKnown:
		b.note(secPort, w.Pos, false, "the worker's arguments do not name its bind address: the spec expects 127.0.0.1; set address if it binds another")
	case host == "":
		b.note(secPort, w.Pos, true, "the worker binds %q: an empty host is every interface for most servers; set address (with allow_all_interfaces = true for 0.0.0.0 or ::), or bind 127.0.0.1", ":"+number)
	case host == "localhost":
		pi.address = "127.0.0.1"
		b.note(secPort, w.Pos, false, "the worker binds localhost: the spec expects 127.0.0.1; use ::1 if localhost resolves to it")
	default:
		a, err := netip.ParseAddr(host)
		if err != nil {
			b.note(secPort, w.Pos, true, "the worker binds %q, not an IP address: set address to the address it resolves to", host)
			break
		}
		pi.address = a.String()
		pi.allowAll = a.IsUnspecified()
	}
	return pi
}

// positionalPort finds a port given by position rather than by a flag, by
// its class: an argument that is only a caller variable named like a port
// ("$PORT", "${APP_PORT:-8000}": the port), one that is HOST:PORT (an IP,
// localhost or $HOST before the colon; digits or a variable after it: the
// address), or a last argument that is a bare number not after a flag
// (python3 -m http.server 8000). what is "port" or "address".
func positionalPort(argv []envres.Word) (w *envres.Word, what string) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !a.Resolved() || len(a.Parts) == 0 {
			continue
		}
		if len(a.Parts) == 1 && a.Parts[0].Env != "" && strings.Contains(strings.ToUpper(a.Parts[0].Env), "PORT") {
			return &argv[i], "port"
		}
		if hostPort(a) {
			return &argv[i], "address"
		}
	}
	last := argv[len(argv)-1]
	if len(argv) > 1 {
		prev, _ := argv[len(argv)-2].Literal()
		if s, ok := last.Literal(); ok && !strings.HasPrefix(prev, "-") {
			if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= 65535 {
				return &argv[len(argv)-1], "port"
			}
		}
	}
	return nil, ""
}

// numericVarArg finds an argument that is only a caller variable with a
// numeric default that could be a port ("${LISTEN:-8000}"), not the value
// of a flag before it; nil when there is none.
func numericVarArg(argv []envres.Word) *envres.Word {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !a.Resolved() || len(a.Parts) != 1 || a.Parts[0].Env == "" || !a.Parts[0].HasDefault {
			continue
		}
		if prev, ok := argv[i-1].Literal(); ok && strings.HasPrefix(prev, "-") && i > 1 {
			continue
		}
		if n, err := strconv.Atoi(a.Parts[0].Default); err == nil && n >= 1 && n <= 65535 {
			return &argv[i]
		}
	}
	return nil
}

// hostPort reports whether w is HOST:PORT: an IP address, localhost or a
// caller variable before the last colon, digits or a caller variable
// after it (not module:attr, as uvicorn's app:app).
func hostPort(w envres.Word) bool {
	var b strings.Builder
	for _, p := range w.Parts {
		if p.Env != "" {
			b.WriteString("$V")
			continue
		}
		b.WriteString(p.Lit)
	}
	s := b.String()
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	s = strings.TrimSuffix(s, "/")
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return false
	}
	host, port := strings.Trim(s[:i], "[]"), s[i+1:]
	if port != "$V" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return false
		}
	}
	if host == "localhost" || host == "$V" {
		return true
	}
	_, err := netip.ParseAddr(host)
	return err == nil
}

// interpreterWorker reports whether the worker's argv[0] is an
// interpreter (python3, node, …): the spec then selects the worker as
// the port's owner.
func interpreterWorker(w *envres.Start) bool {
	if len(w.Argv) == 0 {
		return false
	}
	a0, ok := w.Argv[0].Literal()
	return ok && isInterpreter(filepath.Base(a0))
}
