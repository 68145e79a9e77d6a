package redact

import "strings"

// shape recognises an argv element built from secrets whose values are
// not known, by the element as it was recorded (masked): "pre.<K>.post"
// is literal text around placeholders. An element of that shape whose
// parts in place of the placeholders pass the test (a keyed digest
// recorded at launch) is shown as the recorded element.
type shape struct {
	segs  []string // literal text: len(names)+1 pieces
	names []string
	shown string
	test  func(name, value string) bool
}

// addShape records an argv element as it was recorded, masked (its
// placeholders are <NAME> of names in names), so that an element of that
// shape whose secret parts pass test is masked as the recorded element:
// "pre.${env("K")}.post" is shown as pre.<K>.post by a command that does
// not know K's value but holds its digest (verify, explain from another
// shell). An element with no placeholder of those names is ignored.
func (s *Set) addShape(masked string, names []string, test func(name, value string) bool) {
	if s == nil || test == nil {
		return
	}
	sh := shape{shown: masked, test: test}
	rest := masked
	for {
		i, name := -1, ""
		for _, n := range names {
			if j := strings.Index(rest, Placeholder(n)); j >= 0 && (i < 0 || j < i) {
				i, name = j, n
			}
		}
		if i < 0 {
			break
		}
		sh.segs = append(sh.segs, rest[:i])
		sh.names = append(sh.names, name)
		rest = rest[i+len(Placeholder(name)):]
	}
	if len(sh.names) == 0 {
		return
	}
	sh.segs = append(sh.segs, rest)
	s.shapes = append(s.shapes, sh)
}

// match reports whether a is of the shape, its secret parts passing test.
func (sh *shape) match(a string) bool {
	if !strings.HasPrefix(a, sh.segs[0]) {
		return false
	}
	a = a[len(sh.segs[0]):]
	for i, name := range sh.names {
		next := sh.segs[i+1]
		var v string
		if i == len(sh.names)-1 {
			if !strings.HasSuffix(a, next) || len(a) < len(next) {
				return false
			}
			v, a = a[:len(a)-len(next)], ""
		} else {
			j := strings.Index(a, next)
			if next == "" || j < 0 {
				return false // two placeholders side by side: no way to cut
			}
			v, a = a[:j], a[j+len(next):]
		}
		if v == "" || !sh.test(name, v) {
			return false
		}
	}
	return true
}

// shaped returns the recorded element a is of the shape of, if any.
func (s *Set) shaped(a string) (string, bool) {
	for i := range s.shapes {
		if s.shapes[i].match(a) {
			return s.shapes[i].shown, true
		}
	}
	return "", false
}
