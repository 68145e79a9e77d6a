package redact

import (
	"bytes"
	"io"
	"sort"
	"strings"
)

// MinLen is the shortest value masked by matching (in text, and argv
// elements equal to or containing it). Shorter values ("0", "true") are
// too common to mask without hiding unrelated words; they are only ever
// shown as digests. An argv element known to be secret by where it came
// from (an env() in the spec's command) is masked whatever its length, by
// its position: see schema.Launch.Sensitive.
const MinLen = 6

// Secret is one secret of a launch's secret set: the name shown in its
// place (as <Name>), its value where known, its keyed digest, and where
// it occurs. A Set is built from them by Of, the one builder of masks. A
// Secret is plain data, safe for concurrent use while no one changes it.
type Secret struct {
	// Name is shown in the value's place, as <Name>.
	Name string
	// Value is the secret value; "" where this command does not know it
	// (a record's or a log mask's secret, known by Digest only).
	Value string
	// Exact marks a value that is an argv element secret by where it came
	// from (an env() in the spec's command): an argv element equal to it
	// is shown as <Name> whatever its length. false: masked by length as
	// Text does (values of at least MinLen bytes).
	Exact bool
	// Digest is the keyed digest of Value (launcher.State.Digest of Name
	// and Value); "" when none was taken. A Set recognises a secret whose
	// Value it lacks by it.
	Digest string
	// Occurs are the parts of the launch built from the secret (argv
	// elements, env values); nil: none, or not known.
	Occurs []Occurrence
}

// Occurrence is one part of a launch built from a secret. It is plain data,
// safe for concurrent use while no one changes it.
type Occurrence struct {
	// Part names it: "argv[N]" (element N of the launched argv, from 0),
	// "env[NAME]" (the value passed as NAME), "dir" or "exe" (a recorded
	// process's exe path, built from the secret).
	Part string
	// Shown is the part as it is shown (masked: "pre.<K>.post"); "" for
	// an env value, which is never shown. A Set that knows the secret by
	// its digest only masks an argv element of that shape (see Of).
	Shown string
}

// matcher recognises a secret whose value is not known, only a test of it
// (a keyed digest recorded at launch).
type matcher struct {
	name  string
	equal func(string) bool
}

// Set is the mask of a secret set: what one command knows of the
// secrets of the launches it shows (their values, or their digests and
// where they occur), ready to mask text, argv and streams. Of builds it.
// The zero value and nil are empty sets: every method passes its input
// through unchanged. A Set is not changed after Of and is safe for
// concurrent use.
type Set struct {
	secrets  []Secret
	digest   func(name, value string) string
	byValue  map[string]string // value (or a line of it) → name
	exact    map[string]string // argv elements secret by provenance → name
	ordered  []Secret          // maskable in text, longest value first
	matchers []matcher
	shapes   []shape // argv elements built from secrets known by digest
	rep      *strings.Replacer
}

// Of builds the mask of a secret set — the one builder every output's
// mask comes from. A secret with a Value is masked by it (Exact: also as
// a whole argv element of any length). One known by Digest only (digest
// gives the keyed digest of a candidate value; nil: such secrets mask
// nothing) is masked where an argv element or a word of text equals its
// value, and where an argv element has the shape of one of its argv
// Occurs (literal text around placeholders, "pre.<K>.post") with the
// secret parts passing the digest. Secrets are kept in order (Secrets);
// the first name given for a value wins.
func Of(secrets []Secret, digest func(name, value string) string) *Set {
	s := &Set{digest: digest}
	for _, sec := range secrets {
		s.secrets = append(s.secrets, sec)
		switch {
		case sec.Value != "" && sec.Exact:
			s.addExact(sec.Name, sec.Value)
		case sec.Value != "":
			s.add(sec.Name, sec.Value)
		case sec.Digest != "" && digest != nil:
			name, want := sec.Name, sec.Digest
			s.addMatcher(name, func(v string) bool { return digest(name, v) == want })
		}
	}
	if len(s.ordered) > 0 {
		s.replacer() // now, not on first use: the Set is shared
	}
	if digest == nil {
		return s
	}
	// Argv elements built from secrets known by digest only: each
	// recorded element once, with the names of every such secret in it.
	byDigest := map[string][]string{}
	var shown []string
	names := map[string][]string{}
	for _, sec := range secrets {
		if sec.Value != "" || sec.Digest == "" {
			continue
		}
		byDigest[sec.Name] = append(byDigest[sec.Name], sec.Digest)
		for _, o := range sec.Occurs {
			if o.Shown == "" || !strings.HasPrefix(o.Part, "argv[") && o.Part != "exe" {
				continue
			}
			if names[o.Shown] == nil {
				shown = append(shown, o.Shown)
			}
			names[o.Shown] = append(names[o.Shown], sec.Name)
		}
	}
	test := func(name, v string) bool {
		d := digest(name, v)
		for _, want := range byDigest[name] {
			if d == want {
				return true
			}
		}
		return false
	}
	for _, a := range shown {
		s.addShape(a, names[a], test)
	}
	return s
}

// Union is the mask of the secrets of every set together (Of over their
// Secrets, with the first digest function given).
func Union(sets ...*Set) *Set {
	var all []Secret
	var digest func(name, value string) string
	for _, o := range sets {
		if o == nil {
			continue
		}
		all = append(all, o.secrets...)
		if digest == nil {
			digest = o.digest
		}
	}
	return Of(all, digest)
}

// Secrets returns the secrets the set was built from, in order (nil set:
// none). The caller must not change them.
func (s *Set) Secrets() []Secret {
	if s == nil {
		return nil
	}
	return s.secrets
}

// Placeholder is what a secret's value is shown as: <NAME>.
func Placeholder(name string) string { return "<" + name + ">" }

// add records value as secret under name. An empty value is ignored. The
// first name added for a value wins. A value with several lines (a file
// read whole) also masks each of its lines and its trimmed form, as a
// program printing it would show them.
func (s *Set) add(name, value string) {
	if s == nil || value == "" {
		return
	}
	if s.byValue == nil {
		s.byValue = map[string]string{}
	}
	add := func(v string) {
		if v == "" {
			return
		}
		if _, dup := s.byValue[v]; dup {
			return
		}
		s.byValue[v] = name
		if len(v) >= MinLen {
			s.ordered = append(s.ordered, Secret{Name: name, Value: v})
		}
	}
	add(value)
	add(strings.TrimSpace(value))
	if strings.ContainsAny(value, "\r\n") {
		for _, line := range strings.FieldsFunc(value, func(r rune) bool { return r == '\n' || r == '\r' }) {
			add(line)
			add(strings.TrimSpace(line))
		}
	}
	s.rep = nil
}

// addExact records an argv element known to be secret by where it came
// from (an env() in a spec's command): an argv element equal to it is
// shown as <NAME> whatever its length. Longer values are also added as
// by add.
func (s *Set) addExact(name, value string) {
	if s == nil || value == "" {
		return
	}
	if s.exact == nil {
		s.exact = map[string]string{}
	}
	if _, dup := s.exact[value]; !dup {
		s.exact[value] = name
	}
	s.add(name, value)
}

// addMatcher records a secret known only by a test of its value (a
// comparison with a keyed digest recorded at launch). It masks argv
// elements equal to such a value, or whose part after the first '=' or
// ':' is.
func (s *Set) addMatcher(name string, equal func(value string) bool) {
	if s == nil || equal == nil {
		return
	}
	s.matchers = append(s.matchers, matcher{name: name, equal: equal})
}

// Empty reports whether the set holds no secret.
func (s *Set) Empty() bool {
	return s == nil || len(s.byValue) == 0 && len(s.matchers) == 0 && len(s.exact) == 0 && len(s.shapes) == 0
}

// Names returns the distinct names of the set's secrets, sorted.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range s.byValue {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, m := range s.matchers {
		if !seen[m.name] {
			seen[m.name] = true
			out = append(out, m.name)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Set) replacer() *strings.Replacer {
	if s.rep == nil {
		sort.SliceStable(s.ordered, func(i, j int) bool {
			if len(s.ordered[i].Value) != len(s.ordered[j].Value) {
				return len(s.ordered[i].Value) > len(s.ordered[j].Value)
			}
			return s.ordered[i].Value < s.ordered[j].Value
		})
		pairs := make([]string, 0, 2*len(s.ordered))
		for _, sec := range s.ordered {
			pairs = append(pairs, sec.Value, Placeholder(sec.Name))
		}
		s.rep = strings.NewReplacer(pairs...)
	}
	return s.rep
}

// WordDelims end a word that Text compares with the matchers.
const WordDelims = " \t\r\n\"'`=:,;()[]{}<>"

// Text masks every secret value of at least MinLen bytes in x. A secret
// known only by a matcher is masked where it stands as a word of its own
// (between WordDelims).
func (s *Set) Text(x string) string {
	if s == nil {
		return x
	}
	if len(s.ordered) > 0 {
		x = s.replacer().Replace(x)
	}
	if len(s.matchers) == 0 && len(s.shapes) == 0 {
		return x
	}
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start >= 0 {
			b.WriteString(s.word(x[start:end]))
			start = -1
		}
	}
	for i, r := range x {
		if strings.ContainsRune(WordDelims, r) {
			flush(i)
			b.WriteRune(r)
		} else if start < 0 {
			start = i
		}
	}
	flush(len(x))
	return b.String()
}

// word masks w when a matcher recognises it.
func (s *Set) word(w string) string {
	if shown, ok := s.shaped(w); ok {
		return shown
	}
	if len(w) < MinLen {
		return w
	}
	for _, m := range s.matchers {
		if m.equal(w) {
			return Placeholder(m.name)
		}
	}
	return w
}

// Arg masks one argv element: an element equal to a secret value becomes
// <NAME>; secret values inside it are masked as in Text. Values shorter
// than MinLen are left alone.
func (s *Set) Arg(a string) string {
	if s == nil {
		return a
	}
	if n, ok := s.exact[a]; ok {
		return Placeholder(n)
	}
	if shown, ok := s.shaped(a); ok {
		return shown
	}
	if len(a) < MinLen {
		return a
	}
	if n, ok := s.byValue[a]; ok {
		return Placeholder(n)
	}
	for _, m := range s.matchers {
		if m.equal(a) {
			return Placeholder(m.name)
		}
		if i := strings.IndexAny(a, "=:"); i >= 0 && len(a)-i-1 >= MinLen && m.equal(a[i+1:]) {
			return a[:i+1] + Placeholder(m.name)
		}
	}
	return s.Text(a)
}

// Argv returns a copy of argv with every element masked by Arg. A nil
// argv stays nil.
func (s *Set) Argv(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = s.Arg(a)
	}
	return out
}

// Lines returns a copy of lines with each masked by Text.
func (s *Set) Lines(lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = s.Text(l)
	}
	return out
}

// Contains reports whether x holds a secret value that Text or Arg would
// mask.
func (s *Set) Contains(x string) bool {
	return s.Arg(x) != x
}

// maxPending bounds how much of a line Writer holds back waiting for its
// newline.
const maxPending = 64 << 10

// Writer returns a writer that masks what is written to it before passing
// it to w (for following a log): known values as Stream does (inside
// words, across writes), and, when the set has matchers, values known
// only by digest where they stand as a word of their own, line by line
// (a line longer than 64 KiB is judged in pieces). Close flushes what is
// held back; it does not close w.
func (s *Set) Writer(w io.Writer) io.WriteCloser {
	if s == nil || len(s.matchers) == 0 {
		return s.Stream(w)
	}
	lw := &lineWriter{s: s, w: w}
	return &chain{first: s.Stream(lw), then: lw}
}

// chain is a Stream feeding a lineWriter: Close closes both, in order.
type chain struct {
	first, then io.WriteCloser
}

func (c *chain) Write(p []byte) (int, error) { return c.first.Write(p) }

func (c *chain) Close() error {
	err := c.first.Close()
	if err2 := c.then.Close(); err == nil {
		err = err2
	}
	return err
}

type lineWriter struct {
	s       *Set
	w       io.Writer
	pending []byte
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.pending = append(lw.pending, p...)
	i := bytes.LastIndexByte(lw.pending, '\n')
	if i < 0 && len(lw.pending) < maxPending {
		return len(p), nil
	}
	end := i + 1
	if i < 0 {
		end = len(lw.pending)
	}
	if _, err := io.WriteString(lw.w, lw.s.Text(string(lw.pending[:end]))); err != nil {
		return 0, err
	}
	lw.pending = append(lw.pending[:0], lw.pending[end:]...)
	return len(p), nil
}

func (lw *lineWriter) Close() error {
	if len(lw.pending) == 0 {
		return nil
	}
	_, err := io.WriteString(lw.w, lw.s.Text(string(lw.pending)))
	lw.pending = nil
	return err
}
