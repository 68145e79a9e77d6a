package portplaceholder

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
)

// portRef is the port placeholder of a Launch built in Go:
// {{port "http"}} is the Number of the port named "http" in Ports, and
// {{port}} that of the only port.
var portRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{\{\s*port(?:\s+"([^"]*)")?\s*\}\}`)
})

// Fill returns l with every port placeholder in its Command,
// Dispatch and Env values replaced by the port's number (l itself when
// there is none), so that a Go caller writes a port once, in Ports:
//
//	Command: []string{bin, "--addr", `127.0.0.1:{{port "http"}}`},
//	Ports:   []spec.Port{{Name: "http", Number: launchertest.FreePort(t)}},
//
// A placeholder naming no declared port is an outcome.Usage error.
func Fill(l *spec.Launch) (*spec.Launch, error) {
	// A placeholder starts with "{{": a string without it is not given
	// to the regexp (a launch's command and env are mostly without one).
	has := func(s string) bool { return strings.Contains(s, "{{") && portRef().MatchString(s) }
	if !slices.ContainsFunc(l.Command, has) && !slices.ContainsFunc(l.Dispatch, has) && !anyValue(l.Env, has) {
		return l, nil
	}
	var bad error
	fill := func(field, s string) string {
		return portRef().ReplaceAllStringFunc(s, func(ref string) string {
			name := portRef().FindStringSubmatch(ref)[1]
			n, err := portNumber(l, name)
			if err != nil && bad == nil {
				bad = &failure.Error{Outcome: outcome.Usage, Msg: fmt.Sprintf("launch %q: %s: %s", l.Name, field, ref), Err: err,
					Hint: "name a port of the launch's Ports ({{port \"NAME\"}}), or write {{port}} for its only port"}
			}
			return strconv.Itoa(n)
		})
	}
	c := *l
	c.Command = fillAll("Command", l.Command, fill)
	c.Dispatch = fillAll("Dispatch", l.Dispatch, fill)
	if l.Env != nil {
		c.Env = make(map[string]string, len(l.Env))
		for k, v := range l.Env {
			c.Env[k] = fill("Env["+k+"]", v)
		}
	}
	if bad != nil {
		return nil, bad
	}
	return &c, nil
}

// anyValue reports whether has holds for one of env's values.
func anyValue(env map[string]string, has func(string) bool) bool {
	for _, v := range env {
		if has(v) {
			return true
		}
	}
	return false
}

// fillAll fills each of args, named field[i].
func fillAll(field string, args []string, fill func(field, s string) string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fill(fmt.Sprintf("%s[%d]", field, i), a)
	}
	return out
}

// portNumber is the number of the port called name ("": the only port).
func portNumber(l *spec.Launch, name string) (int, error) {
	if name == "" {
		if len(l.Ports) != 1 {
			return 0, fmt.Errorf("{{port}} stands for the only port, and the launch declares %d", len(l.Ports))
		}
		return l.Ports[0].Number, nil
	}
	for _, p := range l.Ports {
		if p.Name == name {
			return p.Number, nil
		}
	}
	return 0, fmt.Errorf("no port named %q in Ports", name)
}
