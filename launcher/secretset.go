package launcher

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
)

// SecretSets reads the value of each secret override name (run and
// relaunch --set-secret NAME) through lookup (nil: os.LookupEnv, the
// caller's environment) into set, and returns the names in order: the
// EnvInput.SecretSet of the launch. A name that is not a valid variable
// name, is given as NAME=VALUE (a command line is visible to every user),
// is also a plain override in set, or is not set where lookup looks, is an
// *Error of Outcome outcome.Usage; set then holds what was
// read before it. No value is ever part of an error.
func SecretSets(names []string, set map[string]string, lookup func(string) (string, bool)) ([]string, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var out []string
	for _, n := range names {
		if strings.Contains(n, "=") {
			return nil, &Error{Outcome: outcome.Usage, Msg: fmt.Sprintf("--set-secret %s: takes a NAME, not NAME=VALUE", strings.SplitN(n, "=", 2)[0]),
				Hint: "export the value and pass its name: a command line is visible to every user of the machine (ps)"}
		}
		if n == "" {
			return nil, errorf(outcome.Usage, "--set-secret: empty name")
		}
		if !spec.IsEnvName(n) {
			return nil, errorf(outcome.Usage, "--set-secret %q: not a valid environment variable name (letters, digits and _, not starting with a digit), the same rule as a spec's env", n)
		}
		if _, dup := set[n]; dup {
			return nil, errorf(outcome.Usage, "--set %s and --set-secret %s: give one of them", n, n)
		}
		v, ok := lookup(n)
		if !ok {
			return nil, &Error{Outcome: outcome.Usage, Msg: fmt.Sprintf("--set-secret %s: %s is not set in the caller's environment", n, n),
				Other: n, Fix: FixSecretExport,
				Hint: "set " + n + " in the environment first: a SecretSet name takes its value from there"}
		}
		set[n] = v
		out = append(out, n)
	}
	return out, nil
}

// PlainSecretSets returns, sorted, the names of set that l makes secret
// (spec.Launch.SecretName) but that are not among secretSet: secret
// values given as plain overrides (--set NAME=VALUE) rather than through
// the environment (--set-secret NAME). Their values are still never
// stored, but they were on the command line.
func PlainSecretSets(l *spec.Launch, set map[string]string, secretSet []string) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(set)) {
		if l.SecretName(n) && !slices.Contains(secretSet, n) {
			out = append(out, n)
		}
	}
	return out
}
