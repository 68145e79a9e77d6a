package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
	"github.com/spf13/cobra"
)

// overrideFlags are the --set and --set-secret flags of run and
// relaunch.
type overrideFlags struct {
	sets, secrets []string
}

// add adds the flags to c, with their usage lines.
func (o *overrideFlags) add(c *cobra.Command, setUsage, secretUsage string) {
	c.Flags().StringArrayVar(&o.sets, "set", nil, setUsage)
	c.Flags().StringArrayVar(&o.secrets, "set-secret", nil, secretUsage)
}

// parseOverrides reads o: each --set NAME=VALUE, and each --set-secret
// NAME's value from the caller's environment (parseSecretSets). A
// malformed one is a usage error.
func (a *app) parseOverrides(o overrideFlags) (launcher.EnvInput, error) {
	set, err := setSyntax.parseMap(o.sets)
	if err != nil {
		return launcher.EnvInput{}, err
	}
	secret, err := a.parseSecretSets(o.secrets, set)
	if err != nil {
		return launcher.EnvInput{}, err
	}
	return launcher.EnvInput{Set: set, SecretSet: secret}, nil
}

// warnOverrides warns, once the launch is loaded, about the --set names
// that are known no-op aliases and the plain --set of a name the spec
// makes secret (warnSecretSets).
func (a *app) warnOverrides(l *schema.Launch, in launcher.EnvInput) {
	for _, n := range slices.Sorted(maps.Keys(in.Set)) {
		if real, ok := l.AliasOf(n); ok {
			fmt.Fprintf(a.stderr, "childproof: warning: --set %s: %s is a known no-op alias: setting it does nothing; the variable that takes effect is %s\n", n, n, real)
		}
	}
	a.warnSecretSets(l, in.Set, in.SecretSet)
}
