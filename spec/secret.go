package spec

import (
	"fmt"
	"github.com/childproof/childproof/internal/specrule"
	"maps"
	"slices"
	"strings"

	"github.com/childproof/childproof/redact"
)

// Secrets returns the launch's secrets known without launching it (values
// never printed, logged or stored): what env() and file() returned while
// the spec was read, the spec's env value of each name in the secret list,
// the argv elements taken from env() or file() (Exact: masked where they
// stand whole, however short), and every value of the env file. The
// launcher's secret set adds the resolved values of secret names and
// --set-secret values, and where each secret occurs (launcher.Env.Secrets).
func (l *Launch) Secrets() []redact.Secret {
	var out []redact.Secret
	for _, sec := range l.SecretValues {
		out = append(out, redact.Secret{Name: sec.Name, Value: sec.Value})
	}
	for _, name := range slices.Sorted(maps.Keys(l.Env)) {
		if l.IsSecret(name) && l.Env[name] != "" {
			out = append(out, redact.Secret{Name: name, Value: l.Env[name]})
		}
	}
	// masked reports whether the values so far mask a already.
	masked := func(a string) bool { return redact.Of(out, nil).Arg(a) != a }
	for _, argv := range []struct {
		key  string
		args []string
	}{{"command", l.Command}, {"dispatch", l.Dispatch}} {
		for i, a := range argv.args {
			if a == "" || !l.Sensitive[fmt.Sprintf("%s[%d]", argv.key, i)] || masked(a) {
				continue // not secret, or masked by its content already
			}
			name := "secret"
			for _, sec := range l.SecretValues {
				if strings.Contains(a, sec.Value) {
					name = sec.Name
					break
				}
			}
			out = append(out, redact.Secret{Name: name, Value: a, Exact: true})
		}
	}
	// A worker's comm from env() or file() is the live comm of every
	// process it selects: shown as <NAME> where a comm stands, however
	// short (a comm has at most 15 bytes), as an argv element would be.
	comms := map[string]string{"worker.comm": l.Worker.Comm}
	for i, r := range l.Roles {
		comms[specrule.NS("worker", i, "comm")] = r.Worker.Comm
	}
	for _, key := range slices.Sorted(maps.Keys(comms)) {
		c := comms[key]
		if c == "" || !l.Sensitive[key] {
			continue
		}
		name := "secret"
		for _, sec := range l.SecretValues {
			if strings.Contains(c, sec.Value) {
				name = sec.Name
				break
			}
		}
		out = append(out, redact.Secret{Name: name, Value: c, Exact: true})
	}
	entries, _ := l.envFileEntries() // what it could read
	for _, e := range entries {
		if e.Value != "" {
			out = append(out, redact.Secret{Name: e.Name, Value: e.Value})
		}
	}
	return out
}

// Mask is the mask of the launch's secrets known without launching it
// (Secrets), for a command that shows the spec.
func (l *Launch) Mask() *redact.Set {
	return redact.Of(l.Secrets(), nil)
}

// SecretName reports whether the spec makes the value of variable name
// secret, so that a --set of it is never stored: name is in the launch's
// secret list, or the spec's env gives it a value from env() or file().
// (Env file names are not: a --set typed over an env file's value is the
// operator's crash-fix delta, and is kept.)
func (l *Launch) SecretName(name string) bool {
	if l.IsSecret(name) {
		return true
	}
	_, inEnv := l.Env[name]
	return inEnv && l.Sensitive["env["+name+"]"]
}

// IsSecret reports whether name is in the launch's secret list.
func (l *Launch) IsSecret(name string) bool {
	return slices.Contains(l.Secret, name)
}
