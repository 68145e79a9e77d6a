package mask

import (
	"fmt"
	"maps"
	"slices"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
)

// SecretSet builds a launch's secret set — the one place it is built,
// with redact.Of making its mask: the spec's own secrets
// (spec.Launch.Secrets: what env() and file() returned, the argv
// elements taken from them, every value of the env file, the env value of
// each name of the secret list) and the value vars gives each name of the
// secret list and of extra (--set-secret). vars is the resolved
// environment of a launch, or the --set values when it was never
// resolved. Each secret carries its keyed digest (digest; nil: none
// taken) and where it occurs: the elements of argv (the argv launched;
// nil: not built yet) and the values of vars built from it. The record
// and the log mask store them, so that a command without the values
// masks by the digests and the recorded occurrences.
func SecretSet(l *spec.Launch, vars map[string]string, extra []string, argv []string, digest func(name, value string) string) *redact.Set {
	if l == nil {
		return redact.Of(nil, digest)
	}
	secs := l.Secrets()
	for _, n := range append(slices.Clone(l.Secret), extra...) {
		if v := vars[n]; v != "" {
			secs = append(secs, redact.Secret{Name: n, Value: v})
		}
	}
	type key struct {
		name, value string
		exact       bool
	}
	seen := map[key]bool{}
	out := secs[:0]
	for _, sec := range secs {
		if k := (key{sec.Name, sec.Value, sec.Exact}); !seen[k] {
			seen[k] = true
			out = append(out, sec)
		}
	}
	secs = out
	all := redact.Of(secs, nil)
	names := slices.Sorted(maps.Keys(vars))
	for i := range secs {
		sec := &secs[i]
		if digest != nil {
			sec.Digest = digest(sec.Name, sec.Value)
		}
		one := redact.Of([]redact.Secret{{Name: sec.Name, Value: sec.Value, Exact: sec.Exact}}, nil)
		for j, a := range argv {
			if one.Arg(a) != a {
				sec.Occurs = append(sec.Occurs, redact.Occurrence{Part: fmt.Sprintf("argv[%d]", j), Shown: all.Arg(a)})
			}
		}
		for _, n := range names {
			if v := vars[n]; v == sec.Value || one.Text(v) != v {
				sec.Occurs = append(sec.Occurs, redact.Occurrence{Part: "env[" + n + "]"})
			}
		}
	}
	return redact.Of(secs, digest)
}
