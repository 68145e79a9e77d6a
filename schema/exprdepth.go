package schema

import (
	"bytes"
)

// MaxExprDepth bounds how deep one expression of a spec may go: its
// operators (unary and binary) counted along each chain, plus the
// brackets, quotes and template directives around them. HCL parses a
// unary chain by recursion and builds a binary chain as a left-leaning
// tree that evaluation walks by recursion: 400,000 unary minus signs or
// 520,000 '+' terms overflowed the Go stack (a fatal error after more
// than 1 GB of stack), well under MaxFileSize. No spec a person writes
// comes near this.
const MaxExprDepth = 1000

// exprScan is the state of exprTooDeep: a single pass over the bytes with
// a stack of open levels (HCL's own scanner computes each token's column
// from its line's start, quadratic on a long line: 4 s for a 1 MiB one).
type exprScan struct {
	src         []byte
	i           int
	line, start int // 1-based line, byte offset of its start
	levels      []exprLevel
	depth       int // open levels plus the operators counted in them
	at          int // where the token being scanned starts
	max         int // the deepest depth seen
}

type exprKind uint8

const (
	kBody      exprKind = iota // the file, a block body, an object: a newline ends an item
	kGroup                     // ( or [: newlines do not end an item
	kInterp                    // ${ … } or %{ … }
	kQuote                     // "…" template text
	kHeredoc                   // <<EOF … EOF template text
	kDirective                 // %{ if } … %{ endif }, %{ for } … %{ endfor }
)

type exprLevel struct {
	kind  exprKind
	ops   int
	delim []byte // kHeredoc: the closing marker
}

// exprTooDeep reports the 1-based line and byte column at which an
// expression of src first goes deeper than MaxExprDepth.
//
// Depth: each open bracket, quote, heredoc, interpolation and template
// if/for adds one; each operator adds one to the level it is in until a
// comma or '=' (or, in a body or object, a newline) ends the item it
// belongs to. A level's count is dropped when it closes.
func exprTooDeep(src []byte) (line, col, offset int, deep bool) {
	s := newExprScan(src)
	if !s.run() {
		return s.line, s.at - s.start + 1, s.at, true
	}
	return 0, 0, 0, false
}

func newExprScan(src []byte) *exprScan {
	return &exprScan{src: src, line: 1, levels: []exprLevel{{kind: kBody}}}
}

// run scans all of src; false when it goes too deep.
func (s *exprScan) run() bool {
	for s.i < len(s.src) {
		var ok bool
		switch s.top().kind {
		case kQuote, kHeredoc, kDirective:
			ok = s.template()
		default:
			ok = s.expr()
		}
		if !ok {
			return false
		}
	}
	return true
}

func (s *exprScan) top() *exprLevel { return &s.levels[len(s.levels)-1] }

func (s *exprScan) open(k exprKind, delim []byte) bool {
	s.levels = append(s.levels, exprLevel{kind: k, delim: delim})
	s.depth++
	s.max = max(s.max, s.depth)
	return s.depth <= MaxExprDepth
}

func (s *exprScan) close() {
	if len(s.levels) > 1 {
		s.depth -= s.top().ops + 1
		s.levels = s.levels[:len(s.levels)-1]
	}
}

func (s *exprScan) op() bool {
	s.top().ops++
	s.depth++
	s.max = max(s.max, s.depth)
	return s.depth <= MaxExprDepth
}

func (s *exprScan) endItem() {
	s.depth -= s.top().ops
	s.top().ops = 0
}

func (s *exprScan) newline() {
	s.line++
	s.start = s.i + 1
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// expr scans one token of an expression context. It returns false at the
// byte where the depth goes over the bound.
func (s *exprScan) expr() bool {
	src, c := s.src, s.src[s.i]
	s.at = s.i
	next := byte(0)
	if s.i+1 < len(src) {
		next = src[s.i+1]
	}
	switch {
	case c == '\n':
		if s.top().kind == kBody {
			s.endItem()
		}
		s.newline()
	case c == '#' || c == '/' && next == '/':
		for s.i < len(src) && src[s.i] != '\n' {
			s.i++
		}
		return true
	case c == '/' && next == '*':
		end := bytes.Index(src[s.i+2:], []byte("*/"))
		stop := len(src)
		if end >= 0 {
			stop = s.i + 2 + end + 2
		}
		for ; s.i < stop; s.i++ {
			if src[s.i] == '\n' {
				s.newline()
			}
		}
		return true
	case c == '"':
		s.i++
		return s.open(kQuote, nil)
	case c == '<' && next == '<':
		return s.heredoc()
	case c == '{':
		s.i++
		return s.open(kBody, nil)
	case c == '(' || c == '[':
		s.i++
		return s.open(kGroup, nil)
	case c == '}':
		// Closes an object or body, or the interpolation it is in.
		s.close()
	case c == ')' || c == ']':
		s.close()
	case c == ',' || c == '=' && next != '=' && next != '>':
		s.endItem()
	case isDigit(c):
		s.i = numberEnd(src, s.i)
		return true
	case isIdentByte(c) && c != '-':
		// An identifier: foo-bar is one.
		for s.i < len(src) && isIdentByte(src[s.i]) {
			s.i++
		}
		return true
	case c == '.' && next == '.' && s.i+2 < len(src) && src[s.i+2] == '.':
		s.i += 3
		return s.op()
	case bytes.IndexByte([]byte("+-*/%<>!?:.&|="), c) >= 0:
		if next == '=' || next == '&' && c == '&' || next == '|' && c == '|' || next == '>' && c == '=' {
			s.i++
		}
		s.i++
		return s.op()
	}
	s.i++
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// numberEnd is where the number starting at src[i] ends, as HCL's lexer
// has it: digits, '.' and exponents (e-5: its sign is no operator), not
// ending in '.' (1.a is the attribute a of 1, and its '.' an operator).
func numberEnd(src []byte, i int) int {
	end := i + 1
	for j := i + 1; j < len(src); {
		switch c := src[j]; {
		case isDigit(c):
			j++
			end = j
		case c == '.':
			j++
		case c == 'e' || c == 'E':
			k := j + 1
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k >= len(src) || !isDigit(src[k]) {
				return end
			}
			j = k + 1
			end = j
		default:
			return end
		}
	}
	return end
}

// heredoc opens a <<EOF or <<-EOF template whose text starts on the next
// line; without a marker the << is an operator pair.
func (s *exprScan) heredoc() bool {
	src := s.src
	j := s.i + 2
	if j < len(src) && src[j] == '-' {
		j++
	}
	k := j
	for k < len(src) && isIdentByte(src[k]) {
		k++
	}
	if k == j || k >= len(src) || src[k] != '\n' && src[k] != '\r' {
		s.i += 2
		return s.op()
	}
	delim := src[j:k]
	for k < len(src) && src[k] != '\n' {
		k++
	}
	s.i = k
	if s.i < len(src) {
		s.newline()
		s.i++
	}
	return s.open(kHeredoc, delim)
}

// template scans template text (a quoted string, a heredoc, the text of
// a directive) up to the next interpolation, directive or end.
func (s *exprScan) template() bool {
	src := s.src
	for s.i < len(src) {
		c := src[s.i]
		s.at = s.i
		next := byte(0)
		if s.i+1 < len(src) {
			next = src[s.i+1]
		}
		lv := s.top()
		switch {
		case c == '\\' && lv.kind == kQuote:
			if next == '\n' {
				s.newline()
			}
			s.i += 2
			continue
		case c == '"' && lv.kind == kQuote:
			s.i++
			s.close()
			return true
		case c == '\n':
			if lv.kind == kQuote {
				// An unterminated string: HCL stops it at the line's end.
				s.close()
				return true
			}
			s.newline()
			s.i++
			if lv.kind == kHeredoc {
				rest := src[s.i:]
				if e := bytes.IndexByte(rest, '\n'); e >= 0 {
					rest = rest[:e]
				}
				if bytes.Equal(bytes.TrimSpace(rest), lv.delim) {
					s.i += len(rest)
					s.close()
					return true
				}
			}
			continue
		case (c == '$' || c == '%') && next == c && s.i+2 < len(src) && src[s.i+2] == '{':
			s.i += 3 // $${ and %%{ are literal
			continue
		case c == '$' && next == '{':
			s.i += 2
			return s.open(kInterp, nil)
		case c == '%' && next == '{':
			s.i += 2
			word := bytes.TrimLeft(src[s.i:], " \t~")
			switch {
			case hasWord(word, "if"), hasWord(word, "for"):
				if !s.open(kDirective, nil) {
					return false
				}
			case hasWord(word, "endif"), hasWord(word, "endfor"):
				if s.top().kind == kDirective {
					s.close()
				}
			}
			return s.open(kInterp, nil)
		}
		s.i++
	}
	return true
}

// hasWord reports whether b starts with the identifier w.
func hasWord(b []byte, w string) bool {
	return bytes.HasPrefix(b, []byte(w)) && (len(b) == len(w) || !isIdentByte(b[len(w)]))
}
