package relaunch

import (
	"maps"
	"slices"

	"github.com/childproof/childproof/spec"
)

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
