package construct

import (
	"net"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/shape"
	"github.com/childproof/childproof/envres/script"
)

// Kind names a kind of construct.
type Kind string

// Constructs a spec replaces or cannot express.
const (
	// ReadinessLoop is a loop polling with curl, wget, nc or sleep.
	ReadinessLoop Kind = "readiness-loop"
	// KillCleanup is pkill, killall, fuser -k or kill $(cat PIDFILE).
	KillCleanup Kind = "kill-cleanup"
	// Conditional is an if or case statement.
	Conditional Kind = "conditional"
)

// Construct is one such statement. It is plain data, safe for concurrent
// use while no one changes it.
type Construct struct {
	Kind Kind
	script.Pos
	// Text is the statement's first line as written.
	Text string
	// URL is the address a readiness loop polls, when written literally:
	// http(s)://… for curl or wget, tcp://HOST:PORT for nc -z HOST PORT.
	URL string
	// Affects is set on a conditional that assigns, exports, loads,
	// changes directory or execs in one of its branches.
	Affects bool
}

// pollers are commands a readiness loop polls with.
var pollers = map[string]bool{"curl": true, "wget": true, "nc": true, "ncat": true, "ss": true, "netstat": true, "lsof": true, "http": true}

// Find returns the constructs of one parsed file, named name as findings
// name it, in the order of their places.
func Find(name string, src []byte, file *syntax.File) []Construct {
	var out []Construct
	lines := strings.Split(string(src), "\n")
	first := func(n syntax.Node) string {
		l := int(n.Pos().Line())
		if l >= 1 && l <= len(lines) {
			return strings.TrimSpace(lines[l-1])
		}
		return ""
	}
	mk := func(k Kind, n syntax.Node) Construct {
		return Construct{Kind: k, Pos: script.Pos{File: name, Line: int(n.Pos().Line()), Column: int(n.Pos().Col())}, Text: first(n)}
	}
	elses := map[syntax.Node]bool{} // the else/elif parts of an if
	walk := func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.WhileClause, *syntax.ForClause:
			calls := callNames(x)
			poll := false
			for c := range calls {
				poll = poll || pollers[c]
			}
			if poll || calls["sleep"] && len(calls) <= 3 {
				c := mk(ReadinessLoop, x)
				c.URL = findURL(x)
				out = append(out, c)
				return false
			}
		case *syntax.IfClause, *syntax.CaseClause:
			if elses[x] {
				break
			}
			if ic, ok := x.(*syntax.IfClause); ok {
				for e := ic.Else; e != nil; e = e.Else {
					elses[e] = true
				}
			}
			c := mk(Conditional, x)
			c.Affects = affects(x)
			if !c.Affects && isCleanup(x) {
				break
			}
			out = append(out, c)
		case *syntax.BinaryCmd:
			if (x.Op == syntax.AndStmt || x.Op == syntax.OrStmt) && affects(x.Y) {
				c := mk(Conditional, x)
				c.Affects = true
				out = append(out, c)
			}
		case *syntax.CallExpr:
			if isKill(x) {
				out = append(out, mk(KillCleanup, x))
			}
		}
		return true
	}
	syntax.Walk(file, walk)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}

// callNames returns the literal command names called under n.
func callNames(n syntax.Node) map[string]bool {
	m := map[string]bool{}
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if l := c.Args[0].Lit(); l != "" {
				m[filepath.Base(l)] = true
			}
		}
		return true
	})
	return m
}

// findURL returns the first http(s) URL written under n, else the
// tcp://HOST:PORT an nc -z HOST PORT polls.
// bareHostPort is HOST:PORT[/PATH] without a scheme: localhost, an IPv4
// address, [IPv6] or a variable, then a port or a variable.
var bareHostPort = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(localhost|[0-9]{1,3}(\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]+\]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?):([0-9]{1,5}|\$\{?[A-Za-z_][A-Za-z0-9_]*(:-[0-9]+)?\}?)(/|$)`)
})

func findURL(n syntax.Node) (url string) {
	defer func() {
		if url != "" {
			return
		}
		syntax.Walk(n, func(n syntax.Node) bool {
			c, ok := n.(*syntax.CallExpr)
			if !ok || url != "" || len(c.Args) < 3 {
				return url == ""
			}
			if a0 := filepath.Base(c.Args[0].Lit()); a0 != "nc" && a0 != "ncat" {
				return true
			}
			host, port := c.Args[len(c.Args)-2].Lit(), c.Args[len(c.Args)-1].Lit()
			if host != "" && port != "" && !strings.HasPrefix(host, "-") {
				url = "tcp://" + net.JoinHostPort(host, port)
			}
			return true
		})
	}()
	syntax.Walk(n, func(n syntax.Node) bool {
		if url != "" {
			return false
		}
		if w, ok := n.(*syntax.Word); ok {
			t := strings.Trim(shape.WordText(w), `"'`)
			if i := strings.Index(t, "http://"); i >= 0 {
				url = t[i:]
			} else if i := strings.Index(t, "https://"); i >= 0 {
				url = t[i:]
			} else if bareHostPort().MatchString(t) {
				// curl -sf localhost:$PORT/health: no scheme, as curl and
				// wget take it.
				url = t
			}
		}
		return true
	})
	return url
}

// affects reports whether a statement assigns, exports, loads, changes
// directory or execs.
func affects(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *syntax.DeclClause:
			found = true
		case *syntax.CallExpr:
			if len(x.Args) == 0 && len(x.Assigns) > 0 {
				found = true
			}
			if len(x.Args) > 0 {
				switch x.Args[0].Lit() {
				case "export", "source", ".", "cd", "pushd", "exec", "set", "unset", "eval":
					found = true
				}
			}
		}
		return true
	})
	return found
}

// isKill reports pkill, killall, fuser -k, and kill of a pid read from a
// file or found by name.
func isKill(c *syntax.CallExpr) bool {
	if len(c.Args) == 0 {
		return false
	}
	switch filepath.Base(c.Args[0].Lit()) {
	case "pkill", "killall":
		return true
	case "fuser":
		for _, a := range c.Args[1:] {
			if l := a.Lit(); l == "-k" || strings.HasPrefix(l, "-") && strings.Contains(l, "k") && !strings.HasPrefix(l, "--") {
				return true
			}
		}
	case "kill":
		for _, a := range c.Args[1:] {
			if strings.Contains(shape.WordText(a), "$(") || strings.Contains(shape.WordText(a), "`") || strings.Contains(strings.ToLower(shape.WordText(a)), "pid") {
				return true
			}
		}
	}
	return false
}

// isCleanup reports a conditional whose branches only kill or remove
// (if [ -f pidfile ]; then kill $(cat pidfile); fi).
func isCleanup(n syntax.Node) bool {
	kill := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && isKill(c) {
			kill = true
		}
		return true
	})
	return kill
}
