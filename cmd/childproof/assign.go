package main

import (
	"fmt"
	"strings"

	"github.com/childproof/childproof/schema"
)

// assignment is one NAME=VALUE argument, or a bare NAME where the syntax
// allows one.
type assignment struct {
	Name, Value string
	HasValue    bool
}

// assignSyntax is how one flag (or positional argument) spells its
// NAME=VALUE arguments. Every command parses them with it, so that every
// malformed one gets the same error, which never repeats the argument: it
// may be a value (a secret) given without its name.
type assignSyntax struct {
	who     string // the flag or command, named where the error may show the name: "--set"
	at      string // where, with %d for the argument's 1-based index: "--set (argument %d of --set)"
	form    string // the expected form, as usage shows it: "NAME=VALUE", "K=V"
	example string // a hint's example, "" for none
	bare    bool   // a NAME without "=VALUE" is allowed
	envName bool   // NAME must be an environment variable name (the spec's rule)
	once    bool   // a NAME given twice is a usage error (which one was meant?)
}

// flagAssign is the syntax of a repeatable flag taking form.
func flagAssign(flag, form string) assignSyntax {
	return assignSyntax{who: flag, at: flag + " (argument %d of " + flag + ")", form: form}
}

// bareAssign is the syntax of a repeatable flag taking an environment
// variable's NAME or NAME=VALUE.
func bareAssign(flag string) assignSyntax {
	s := flagAssign(flag, "NAME or NAME=VALUE")
	s.bare, s.envName = true, true
	return s
}

var (
	varSyntax = func() assignSyntax {
		s := flagAssign("--var", "K=V")
		s.example = "--var port=18090"
		return s
	}()
	setSyntax = func() assignSyntax {
		s := flagAssign("--set", "NAME=VALUE")
		s.example, s.envName, s.once = "--set HF_HUB_ENABLE_HF_TRANSFER=0", true, true
		return s
	}()
	envSyntax      = bareAssign("--env")
	overrideSyntax = bareAssign("--override")
	explainSyntax  = assignSyntax{who: "explain", at: "explain: NAME argument %d", form: "NAME or NAME=VALUE", bare: true, envName: true}
)

// parse splits each argument at its first '='. A malformed one is a
// usage error.
func (s assignSyntax) parse(args []string) ([]assignment, error) {
	out := make([]assignment, 0, len(args))
	first := map[string]int{}
	for i, arg := range args {
		k, v, ok := strings.Cut(arg, "=")
		at := fmt.Sprintf(s.at, i+1)
		prev, dup := first[k]
		if !dup {
			first[k] = i + 1
		}
		switch {
		case !ok && !s.bare:
			err := &exitError{code: exitUsage, err: fmt.Errorf("%s: no '=', want %s; the argument is not shown, it may be a value", at, s.form)}
			if s.example != "" {
				err.hint = "for example " + s.example
			}
			return nil, err
		case k == "" && ok:
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s: a value without a name, want %s; the value is not shown", at, s.form)}
		case k == "":
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s: an empty name, want %s", at, s.form)}
		case s.envName && !schema.IsEnvName(k):
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s: %q is not a valid environment variable name (letters, digits and _, not starting with a digit), the same rule as a spec's env", s.who, k)}
		case s.once && dup:
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s %s given twice (arguments %d and %d of %s); give each name once", s.who, k, prev, i+1, s.who)}
		}
		out = append(out, assignment{Name: k, Value: v, HasValue: ok})
	}
	return out, nil
}

// parseMap is parse into a map, a later NAME winning.
func (s assignSyntax) parseMap(args []string) (map[string]string, error) {
	as, err := s.parse(args)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(as))
	for _, a := range as {
		out[a.Name] = a.Value
	}
	return out, nil
}
