package main

import (
	"maps"
	"os"
	"slices"
	"strings"

	redactpkg "github.com/childproof/childproof/internal/redact"
	"github.com/childproof/childproof/launcher"
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
func logSecrets(st *launcher.State, rec *launcher.Record) *logMasker {
	s := redactpkg.New()
	m := &logMasker{set: s, st: st}
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
			m.unknown = append(m.unknown, [2]string{name, digests[name]})
		}
	}
	return m
}

// logMasker masks a line of worker output: the known values through the
// shared redaction set, the unknown ones word by word through digests.
type logMasker struct {
	set     *redactpkg.Set
	st      *launcher.State
	unknown [][2]string // name, recorded digest
}

// Text masks line.
func (m *logMasker) Text(line string) string {
	line = m.set.Text(line)
	if len(m.unknown) == 0 {
		return line
	}
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		b.WriteString(m.word(line[start:end]))
		start = -1
	}
	for i, r := range line {
		if strings.ContainsRune(wordDelims, r) {
			flush(i)
			b.WriteRune(r)
		} else if start < 0 {
			start = i
		}
	}
	flush(len(line))
	return b.String()
}

// wordDelims end a word that may be a secret value.
const wordDelims = " \t\"'`=:,;()[]{}<>"

func (m *logMasker) word(w string) string {
	if len(w) < redactpkg.MinLen {
		return w
	}
	for _, u := range m.unknown {
		if m.st.Digest(u[0], w) == u[1] {
			return redactpkg.Placeholder(u[0])
		}
	}
	return w
}
