package main

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/childproof/childproof/launcher"
	redactpkg "github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/schema"
)

// logSecrets returns the secret values logs masks in a launch's output,
// found without launching anything: those of the recorded spec as it reads
// here (env(), file(), the env file, the secret list's env values), and
// any value of the caller's environment whose keyed digest, under a
// protected or secret name, is the one recorded for the worker (env("K")
// puts the caller's K under another name; a secret-list name may come
// from inherit).
//
// A secret whose value is known neither way (the caller lacks it) is still
// masked where it stands as a word of its own (delimited by space, quotes,
// '=', ':', ',' and brackets): each such word is compared, as a keyed
// digest, with the recorded digests.
func logSecrets(st *launcher.State, name string, rec *launcher.Record) *logMasker {
	s := redactpkg.New()
	m := &logMasker{set: s}
	// The digests written as the last launch of name started: they
	// cover a launch that failed and left no record.
	s.Merge(st.LogMasker(name))
	if rec == nil {
		return m
	}
	digests := map[string]string{}
	for name, d := range rec.Env {
		if d != "" {
			digests[name] = d
		}
	}
	if rec.SpecPath != "" {
		if f, _, diags := schema.Load(rec.SpecPath, schema.LoadOptions{}); !diags.HasErrors() && f != nil {
			if l, err := f.Launch(rec.Name); err == nil {
				s.Merge(l.Secrets())
				for _, name := range l.Secret {
					if d := rec.WorkerEnv[name]; d != "" {
						digests[name] = d
					}
				}
			}
		}
	}
	found := map[string]bool{}
	for _, kv := range os.Environ() {
		_, v, _ := strings.Cut(kv, "=")
		if len(v) < redactpkg.MinLen {
			continue
		}
		for name, d := range digests {
			if st.Digest(name, v) == d {
				s.Add(name, v)
				found[name] = true
				break
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(digests)) {
		if !found[name] {
			name, d := name, digests[name]
			s.AddMatcher(name, func(v string) bool { return st.Digest(name, v) == d })
		}
	}
	s.Merge(st.Masker(rec))
	return m
}

// logMasker masks a line of worker output through the shared redaction
// set: known values anywhere, values known only by digest where they
// stand as a word of their own.
type logMasker struct {
	set *redactpkg.Set
}

// Text masks line.
func (m *logMasker) Text(line string) string { return m.set.Text(line) }
