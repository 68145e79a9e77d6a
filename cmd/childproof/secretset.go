package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/childproof/childproof/spec"
)

// secretSets reads the value of each secret override name (run and
// relaunch --set-secret NAME) through lookup (nil: os.LookupEnv, the
// caller's environment) into set, and returns the names in order: the
// EnvInput.SecretSet of the launch. A name that is not a valid variable
// name, is given as NAME=VALUE (a command line is visible to every user),
// is also a plain override in set, or is not set where lookup looks, is a
// usage error; set then holds what was read before it. No value is ever part of an error.
func secretSets(names []string, set map[string]string, lookup func(string) (string, bool)) ([]string, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var out []string
	for _, n := range names {
		if strings.Contains(n, "=") {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("--set-secret %s: takes a NAME, not NAME=VALUE", strings.SplitN(n, "=", 2)[0]),
				hint: "export the value and pass its name: a command line is visible to every user of the machine (ps)"}
		}
		if n == "" {
			return nil, exitf(exitUsage, "--set-secret: empty name")
		}
		if !spec.IsEnvName(n) {
			return nil, exitf(exitUsage, "--set-secret %q: not a valid environment variable name (letters, digits and _, not starting with a digit), the same rule as a spec's env", n)
		}
		if _, dup := set[n]; dup {
			return nil, exitf(exitUsage, "--set %s and --set-secret %s: give one of them", n, n)
		}
		v, ok := lookup(n)
		if !ok {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("--set-secret %s: %s is not set in the caller's environment", n, n),
				hint: "export " + n + " first: --set-secret takes the value from the environment, never from the command line"}
		}
		set[n] = v
		out = append(out, n)
	}
	return out, nil
}
