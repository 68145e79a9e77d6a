package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/childproof/childproof/redact"
)

// Secrets returns the launch's secret values known without launching it,
// as a redact.Set (values never printed, logged or stored): what env() and file() returned while the
// spec was read, every value of the env file, and the spec's env value of
// each name in the secret list. The launcher adds the resolved values of
// secret names and --set-secret values (launcher.Env.Secrets).
func (l *Launch) Secrets() *redact.Set {
	s := redact.New()
	for _, sec := range l.SecretValues {
		s.Add(sec.Name, sec.Value)
	}
	for _, name := range slices.Sorted(maps.Keys(l.Env)) {
		if l.IsSecret(name) {
			s.Add(name, l.Env[name])
		}
	}
	// An argv element taken from env() or file() is secret by where it
	// came from, however short: masked where it stands whole.
	for _, argv := range []struct {
		key  string
		args []string
	}{{"command", l.Command}, {"dispatch", l.Dispatch}} {
		for i, a := range argv.args {
			if !l.Sensitive[fmt.Sprintf("%s[%d]", argv.key, i)] || s.Arg(a) != a {
				continue // not secret, or masked by its content already
			}
			name := "secret"
			for _, sec := range l.SecretValues {
				if strings.Contains(a, sec.Value) {
					name = sec.Name
					break
				}
			}
			s.AddExact(name, a)
		}
	}
	entries, _ := l.envFileEntries() // what it could read
	for _, e := range entries {
		s.Add(e.Name, e.Value)
	}
	return s
}

// IsSecret reports whether name is in the launch's secret list.
func (l *Launch) IsSecret(name string) bool {
	return slices.Contains(l.Secret, name)
}
