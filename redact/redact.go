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

// Secret is one secret value and the name shown in its place, as <Name>.
type Secret struct {
	Name  string
	Value string
}

// matcher recognises a secret whose value is not known, only a test of it
// (a keyed digest recorded at launch).
type matcher struct {
	name  string
	equal func(string) bool
}

// Set holds the secret values one command knows. The zero value and nil
// are empty sets: every method passes its input through unchanged.
type Set struct {
	byValue  map[string]string // value (or a line of it) → name
	exact    map[string]string // argv elements secret by provenance → name
	whole    []Secret          // the values as added, for Each
	ordered  []Secret          // maskable in text, longest value first
	matchers []matcher
	shapes   []shape // argv elements built from secrets known by digest
	rep      *strings.Replacer
}

// New returns an empty Set.
func New() *Set { return &Set{} }

// Placeholder is what a secret's value is shown as: <NAME>.
func Placeholder(name string) string { return "<" + name + ">" }

// Add records value as secret under name. An empty value is ignored. The
// first name added for a value wins. A value with several lines (a file
// read whole) also masks each of its lines and its trimmed form, as a
// program printing it would show them.
func (s *Set) Add(name, value string) {
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
	if _, dup := s.byValue[value]; !dup {
		s.whole = append(s.whole, Secret{Name: name, Value: value})
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

// AddExact records an argv element known to be secret by where it came
// from (an env() in a spec's command): an argv element equal to it is
// shown as <NAME> whatever its length. Longer values are also added as
// by Add.
func (s *Set) AddExact(name, value string) {
	if s == nil || value == "" {
		return
	}
	if s.exact == nil {
		s.exact = map[string]string{}
	}
	if _, dup := s.exact[value]; !dup {
		s.exact[value] = name
	}
	s.Add(name, value)
}

// Each calls f with each secret value as it was added (not the lines and
// trimmed forms Add also masks), in the order added. Matchers have no
// value and are left out.
func (s *Set) Each(f func(name, value string)) {
	if s == nil {
		return
	}
	for _, sec := range s.whole {
		f(sec.Name, sec.Value)
	}
}

// AddMatcher records a secret known only by a test of its value (for
// example a comparison with a keyed digest recorded at launch). It masks
// argv elements equal to such a value, or whose part after the first '='
// or ':' is.
func (s *Set) AddMatcher(name string, equal func(value string) bool) {
	if s == nil || equal == nil {
		return
	}
	s.matchers = append(s.matchers, matcher{name: name, equal: equal})
}

// Merge adds every secret of o to s.
func (s *Set) Merge(o *Set) {
	if s == nil || o == nil {
		return
	}
	for _, sec := range o.whole {
		s.Add(sec.Name, sec.Value)
	}
	for v, n := range o.exact {
		s.AddExact(n, v)
	}
	s.matchers = append(s.matchers, o.matchers...)
	s.shapes = append(s.shapes, o.shapes...)
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
