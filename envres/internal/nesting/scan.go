package nesting

import "bytes"

// Max bounds how deep a script may nest before it is parsed: each
// open (, { group, $(, $((, ${, `…`, "…" holding an expansion, if, while,
// until, for, select and case counts one, and so does each && || | ! in
// the statement it is in (mvdan.cc/sh parses every one of these by
// recursion: 300,000 nested '(' or "$(…" overflowed the Go stack, a
// fatal error after more than 1 GB, and 300,000 nested if, { or ${X:-
// took 800-900 MB). No script a person writes comes near it.
const Max = 1000

// Report is what Scan found. It is plain data, safe for concurrent use
// while no one changes it.
type Report struct {
	// Refused is set when a construct nests deeper than Max; Line and
	// Column (1-based, in bytes) are where it is.
	Refused      bool
	Line, Column int
	// Deepest is the deepest nesting counted.
	Deepest int
	// Open is how many levels were left open where the scan ended (0 for
	// a script that closes what it opens).
	Open int
}

// Scan scans src once (linear time, memory bounded by Max) and stops at
// the first construct that nests deeper than Max. It errs towards
// counting: a construct it cannot tell apart counts as an opener, and a
// closer that does not match the innermost opener closes nothing.
func Scan(src []byte) Report {
	s := &nestScan{src: src, line: 1, cmd: true, levels: []nestLevel{{kind: nFile}}}
	if !s.scan() {
		return Report{Refused: true, Line: s.atLine, Column: s.at - s.atStart + 1, Deepest: s.max, Open: len(s.levels) - 1}
	}
	return Report{Deepest: s.max, Open: len(s.levels) - 1}
}

type nestKind uint8

const (
	nFile     nestKind = iota // the script itself: never closed, not counted
	nParen                    // ( subshell, array, <( process substitution
	nCmdSubst                 // $(
	nArith                    // $(( or ((: closed by ))
	nArithB                   // $[: closed by ]
	nArithPar                 // ( inside arithmetic
	nBrace                    // { group }
	nParam                    // ${
	nDQ                       // "…"
	nBacktick                 // `…`
	nIf                       // if … fi
	nLoop                     // while/until/for/select … done
	nCase                     // case … esac
	nHeredoc                  // an unquoted here-document's body
)

type nestLevel struct {
	kind  nestKind
	chain int // && || | ! counted in the statement being scanned
	// case: 0 before "in", 1 in a pattern, 2 in an arm's body
	phase uint8
}

type heredocMark struct {
	delim  []byte
	dash   bool // <<-: leading tabs are stripped
	quoted bool // no expansion in the body
}

type nestScan struct {
	src         []byte
	i           int
	line, start int
	levels      []nestLevel
	depth       int  // open levels (but the file) plus every level's chain
	max         int  // the deepest depth seen
	cmd         bool // at a command word's position: a keyword is one here
	cont        bool // the last operator continues the statement on the next line
	pending     []heredocMark
	// bodies are the unquoted here-documents being scanned (one per
	// nHeredoc level) and after what was queued behind each.
	bodies []heredocMark
	after  [][]heredocMark
	// where the scan stopped: the construct that went too deep
	at, atLine, atStart int
}

func (s *nestScan) top() *nestLevel { return &s.levels[len(s.levels)-1] }

func (s *nestScan) mark() {
	s.at, s.atLine, s.atStart = s.i, s.line, s.start
}

// push opens a level at s.i; false when that is too deep.
func (s *nestScan) push(k nestKind) bool {
	s.mark()
	s.levels = append(s.levels, nestLevel{kind: k})
	s.depth++
	s.max = max(s.max, s.depth)
	return s.depth <= Max
}

func (s *nestScan) pop() {
	if len(s.levels) > 1 {
		s.depth -= s.top().chain + 1
		s.levels = s.levels[:len(s.levels)-1]
	}
}

// chainOp counts an operator of the current statement.
func (s *nestScan) chainOp() bool {
	s.mark()
	s.depth++
	s.max = max(s.max, s.depth)
	s.top().chain++
	return s.depth <= Max
}

func (s *nestScan) endStatement() {
	t := s.top()
	s.depth -= t.chain
	t.chain = 0
}

func (s *nestScan) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

// escape skips a backslash and the byte it quotes.
func (s *nestScan) escape() {
	s.i++
	if s.i < len(s.src) {
		if s.src[s.i] == '\n' {
			s.newline()
		}
		s.i++
	}
}

func (s *nestScan) newline() {
	s.line++
	s.start = s.i + 1
}

// scan runs to the end; false when something nests too deep.
func (s *nestScan) scan() bool {
	for s.i < len(s.src) {
		var ok bool
		switch k := s.top().kind; k {
		case nDQ, nHeredoc:
			ok = s.quoted(k)
		case nArith, nArithB, nArithPar:
			ok = s.arith(k)
		default:
			ok = s.code()
		}
		if !ok {
			return false
		}
	}
	return true
}

// isMeta reports the bytes that end a word in shell code.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

// expansion opens $(, $((, ${ or $[ at s.i (a '$'); it reports whether it
// did and whether that was too deep.
func (s *nestScan) expansion() (opened, ok bool) {
	switch s.peek(1) {
	case '(':
		if s.peek(2) == '(' {
			ok = s.openArith()
			s.i += 3
			return true, ok
		}
		ok = s.push(nCmdSubst)
		s.cmd = true
		s.i += 2
		return true, ok
	case '{':
		ok = s.push(nParam)
		s.i += 2
		return true, ok
	case '[':
		ok = s.push(nArithB)
		s.i += 2
		return true, ok
	}
	return false, true
}

// openArith opens $(( or ((: two levels, as two parentheses are.
func (s *nestScan) openArith() bool {
	return s.push(nArithPar) && s.push(nArith)
}

// skipSingle skips a '…' string from s.i (the opening quote); ansi: $'…'
// with backslash escapes.
func (s *nestScan) skipSingle(ansi bool) {
	s.i++
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\' && ansi:
			s.escape()
			continue
		case c == '\'':
			s.i++
			return
		case c == '\n':
			s.newline()
		}
		s.i++
	}
}

// code scans one token of shell code: the byte at s.i picks the
// construct family (layout, quotes, a '$', parentheses, braces,
// separators and chain operators, redirections); a byte none of them
// takes, or takes no further, is a keyword at a command's position or a
// plain word.
func (s *nestScan) code() bool {
	var done, ok bool
	switch c := s.src[s.i]; c {
	case ' ', '\t', '\r', '\n', '\\', '#':
		done, ok = s.layout(c)
	case '\'', '"', '`':
		done, ok = true, s.quote(c)
	case '$':
		done, ok = true, s.dollar()
	case '(', ')':
		done, ok = true, s.paren(c)
	case '{', '}':
		done, ok = s.brace(c)
	case ';', '&', '|', '!':
		done, ok = s.operator(c)
	case '<', '>':
		done, ok = true, s.redirect(c)
	}
	if done {
		return ok
	}
	if top := s.top(); s.cmd || top.kind == nCase && top.phase == 0 {
		if done, ok := s.keyword(); done {
			return ok
		}
	}
	s.plainWord()
	return true
}

// layout takes what separates tokens at s.i: blanks, a newline (which
// ends the statement unless an operator continues it, and starts the
// here-documents queued on its line), a backslash escape or line
// continuation, and a comment (a '#' starting a word). It records no
// level; done is false for a '#' inside a word.
func (s *nestScan) layout(c byte) (done, ok bool) {
	src := s.src
	switch c {
	case ' ', '\t', '\r':
		s.i++
		return true, true
	case '\n':
		s.newline()
		s.i++
		if !s.cont {
			s.endStatement()
		}
		s.cmd, s.cont = true, false
		if len(s.pending) > 0 {
			return true, s.heredocs()
		}
		return true, true
	case '\\':
		if s.peek(1) != '\n' {
			s.cmd = false // a line continuation keeps the position
		}
		s.escape()
		return true, true
	}
	// '#'
	if s.i == 0 || isMeta(src[s.i-1]) {
		for s.i < len(src) && src[s.i] != '\n' {
			s.i++
		}
		return true, true
	}
	return false, true
}

// quote takes a quote at s.i: a '…' string is skipped whole, a '"' opens
// an nDQ level, and a '`' opens an nBacktick level or closes the one it
// is in. It reports false when the level opened is too deep.
func (s *nestScan) quote(c byte) bool {
	switch c {
	case '\'':
		s.skipSingle(false)
		s.cmd, s.cont = false, false
		return true
	case '"':
		s.cmd, s.cont = false, false
		ok := s.push(nDQ)
		s.i++
		return ok
	}
	// '`'
	s.cont = false
	if s.top().kind == nBacktick {
		s.pop()
		s.i++
		s.cmd = false
		return true
	}
	ok := s.push(nBacktick)
	s.i++
	s.cmd = true
	return ok
}

// dollar takes a '$' at s.i: a $'…' string is skipped whole, $"…" leaves
// its quote to open an nDQ level, $(, $((, ${ and $[ open their levels
// (expansion), and any other '$' is part of a word. It reports false when
// the level opened is too deep.
func (s *nestScan) dollar() bool {
	s.cont = false
	if s.peek(1) == '\'' {
		s.i++
		s.skipSingle(true)
		s.cmd = false
		return true
	}
	if s.peek(1) == '"' {
		s.i++
		return true // $"…": the quote opens below
	}
	if opened, ok := s.expansion(); opened {
		return ok
	}
	s.i++
	s.cmd = false
	return true
}

// paren takes a parenthesis at s.i. A '(' is a case pattern's optional
// opening paren (no level), a function definition's "()" (a chain link:
// the body may be another definition), a (( arithmetic command (two
// levels) or an nParen level; a ')' closes an nParen or nCmdSubst level,
// or ends a case pattern (phase 2). It reports false when what it opened
// is too deep.
func (s *nestScan) paren(c byte) bool {
	top := s.top()
	s.cont = false
	if c == ')' {
		s.i++
		s.cmd = true
		switch top.kind {
		case nParen, nCmdSubst:
			s.pop()
		case nCase:
			if top.phase == 1 {
				top.phase = 2
			}
		}
		return true
	}
	if top.kind == nCase && top.phase == 1 {
		s.i++ // case x in (a) …: the pattern's optional opening paren
		return true
	}
	seg := s.src[s.i+1 : min(len(s.src), s.i+64)]
	if j := s.i + 1 + len(seg) - len(bytes.TrimLeft(seg, " \t")); j < len(s.src) && s.src[j] == ')' {
		// f() BODY: a definition's body may be another definition.
		ok := s.chainOp()
		s.i = j + 1
		s.cmd = true
		return ok
	}
	if s.cmd && s.peek(1) == '(' {
		ok := s.openArith()
		s.i += 2
		return ok
	}
	ok := s.push(nParen)
	s.i++
	s.cmd = true
	return ok
}

// brace takes a brace at s.i: a '{' followed by a blank at a command's
// position opens an nBrace group; a '}' closes an nParam level, or an
// nBrace group at a command's position. done is false for a brace it
// does not take (part of a word); ok is false when the group opened is
// too deep.
func (s *nestScan) brace(c byte) (done, ok bool) {
	if c == '}' {
		s.cont = false
		if k := s.top().kind; k == nParam || k == nBrace && s.cmd {
			s.pop()
			s.i++
			s.cmd = k == nBrace
			return true, true
		}
		return false, true
	}
	if s.cmd && (s.peek(1) == ' ' || s.peek(1) == '\t' || s.peek(1) == '\n') {
		ok := s.push(nBrace)
		s.i++
		return true, ok
	}
	return false, true
}

// operator takes a separator or chain operator at s.i. ';' and a lone
// '&' end the statement (its chain links are dropped), and ;; ;& ;;& end
// a case arm (phase 1: a pattern follows); &> is a redirection; a '|'
// between case patterns is no operator; && || | |& and a '!' standing
// alone each count one chain link of the statement. done is false for a
// '!' inside a word; ok is false when the chain is too deep.
func (s *nestScan) operator(c byte) (done, ok bool) {
	src, top := s.src, s.top()
	switch c {
	case ';':
		s.i++
		if s.peek(0) == ';' || s.peek(0) == '&' {
			s.i++
			if s.peek(0) == '&' {
				s.i++
			}
			if top.kind == nCase {
				top.phase = 1
			}
		}
		s.endStatement()
		s.cmd, s.cont = true, false
		return true, true
	case '!':
		if (s.i == 0 || isMeta(src[s.i-1])) && (s.i+1 == len(src) || isMeta(src[s.i+1])) {
			ok := s.chainOp()
			s.i++
			return true, ok
		}
		return false, true
	}
	next := s.peek(1)
	switch {
	case c == '&' && next == '>':
		s.i += 2 // &> redirection
		return true, true
	case c == '&' && next != '&':
		s.i++
		s.endStatement()
		s.cmd, s.cont = true, false
		return true, true
	case c == '|' && top.kind == nCase && top.phase == 1:
		s.i++ // a | between patterns
		return true, true
	}
	ok = s.chainOp()
	s.i++
	if next == c || next == '&' {
		s.i++
	}
	s.cmd, s.cont = true, true
	return true, ok
}

// redirect takes a redirection operator at s.i: <( and >( open an nParen
// level (process substitution), << (not <<<) queues a here-document
// (heredocMarker), and any other run of < > & | is skipped. It reports
// false when the level opened is too deep.
func (s *nestScan) redirect(c byte) bool {
	src := s.src
	s.cont = false
	if s.peek(1) == '(' {
		ok := s.push(nParen)
		s.i += 2
		s.cmd = true
		return ok
	}
	if c == '<' && s.peek(1) == '<' && s.peek(2) != '<' {
		s.heredocMarker()
		return true
	}
	s.i++
	for s.i < len(src) && (src[s.i] == '<' || src[s.i] == '>' || src[s.i] == '&' || src[s.i] == '|') {
		s.i++
	}
	return true
}

// plainWord skips a plain word from s.i up to the next byte that may
// start something (wordStop); what follows it is no command's position.
func (s *nestScan) plainWord() {
	src := s.src
	s.cmd, s.cont = false, false
	s.i++
	for s.i < len(src) && !wordStop[src[s.i]] {
		s.i++
	}
}

// wordStop are the bytes that may start something after a plain word.
var wordStop = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n;&|()<>'\"`$\\{}!") {
		t[c] = true
	}
	return t
}()

// keyword handles a reserved word at s.i (at a command's position, or a
// case's "in"); done is false when there is none.
func (s *nestScan) keyword() (done, ok bool) {
	src, top := s.src, s.top()
	// The word at s.i, up to a word's end: a reserved word is one when it
	// is all of it (tested once here, not once per keyword).
	j := s.i
	for j < len(src) && j-s.i <= len("function") {
		if c := src[j]; isMeta(c) || c == '\r' || c == '`' {
			break
		}
		j++
	}
	w := src[s.i:j]
	if len(w) < 2 || len(w) > len("function") || w[0] < 'a' || w[0] > 'w' {
		return false, true
	}
	if top.kind == nCase && top.phase == 0 {
		// case WORD in: only "in" is a keyword here.
		if string(w) != "in" {
			return false, true
		}
		top.phase = 1
		s.i = j
		s.cmd = true
		return true, true
	}
	ok = true
	switch string(w) {
	case "if":
		ok = s.push(nIf)
	case "while", "until", "for", "select":
		ok = s.push(nLoop)
	case "case":
		ok = s.push(nCase)
	case "fi", "done", "esac":
		// A closer of another construct is a plain word.
		if top.kind != closerOf(string(w)) {
			return false, true
		}
		s.pop()
	case "time", "coproc", "function":
		// Each takes the command after it: a chain of them nests.
		ok = s.chainOp()
	case "then", "do", "else", "elif":
	default:
		return false, true
	}
	s.i = j
	// A command follows a keyword (after fi, done, esac: an operator,
	// which this does not mind); case's subject is a plain word.
	s.cmd = string(w) != "case"
	return true, ok
}

// closerOf is the construct fi, done or esac closes.
func closerOf(w string) nestKind {
	switch w {
	case "fi":
		return nIf
	case "done":
		return nLoop
	}
	return nCase
}

// heredocMarker reads a <<WORD or <<-WORD redirection at s.i and queues
// its body for the next newline.
func (s *nestScan) heredocMarker() {
	src := s.src
	s.i += 2
	m := heredocMark{}
	if s.peek(0) == '-' {
		m.dash = true
		s.i++
	}
	for s.i < len(src) && (src[s.i] == ' ' || src[s.i] == '\t') {
		s.i++
	}
	var delim []byte
	for s.i < len(src) && !isMeta(src[s.i]) && src[s.i] != '\r' {
		switch c := src[s.i]; c {
		case '\'', '"':
			m.quoted = true
			end := bytes.IndexByte(src[s.i+1:], c)
			if end < 0 || bytes.IndexByte(src[s.i+1:s.i+1+end], '\n') >= 0 {
				s.i++
				continue
			}
			delim = append(delim, src[s.i+1:s.i+1+end]...)
			s.i += end + 2
		case '\\':
			m.quoted = true
			if s.i+1 < len(src) {
				delim = append(delim, src[s.i+1])
			}
			s.i += 2
		default:
			delim = append(delim, c)
			s.i++
		}
	}
	m.delim = delim
	s.pending = append(s.pending, m)
	s.cmd = false
}

// bodyEnds reports whether the line at s.i closes the here-document m,
// and skips that line if so.
func (s *nestScan) bodyEnds(m heredocMark) bool {
	rest := s.src[s.i:]
	if e := bytes.IndexByte(rest, '\n'); e >= 0 {
		rest = rest[:e]
	}
	line := bytes.TrimSuffix(rest, []byte("\r"))
	if m.dash {
		line = bytes.TrimLeft(line, "\t")
	}
	if !bytes.Equal(line, m.delim) {
		return false
	}
	s.i += len(rest)
	if s.i < len(s.src) {
		s.newline()
		s.i++
	}
	return true
}

// heredocs reads the bodies queued on the line just ended (s.i is at the
// start of the next line). An unquoted body is scanned for expansions.
func (s *nestScan) heredocs() bool {
	for len(s.pending) > 0 {
		m := s.pending[0]
		s.pending = s.pending[1:]
		if !m.quoted {
			// The body is scanned as a level whose newlines look for the
			// marker; the queue waits until it closes.
			rest := s.pending
			s.pending = nil
			if s.bodyEnds(m) {
				s.pending = rest
				continue
			}
			ok := s.push(nHeredoc)
			s.bodies = append(s.bodies, m)
			s.after = append(s.after, rest)
			return ok
		}
		for s.i < len(s.src) && !s.bodyEnds(m) {
			e := bytes.IndexByte(s.src[s.i:], '\n')
			if e < 0 {
				s.i = len(s.src)
				return true
			}
			s.i += e
			s.newline()
			s.i++
		}
	}
	return true
}

// quoted scans inside "…" or an unquoted here-document's body: only
// expansions open levels.
func (s *nestScan) quoted(k nestKind) bool {
	src := s.src
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\\':
			s.escape()
			continue
		case c == '"' && k == nDQ:
			s.pop()
			s.i++
			return true
		case c == '`':
			ok := s.push(nBacktick)
			s.i++
			s.cmd = true
			return ok
		case c == '$':
			if opened, ok := s.expansion(); opened {
				return ok
			}
		case c == '\n':
			s.newline()
			s.i++
			if k == nHeredoc {
				m := s.bodies[len(s.bodies)-1]
				if s.bodyEnds(m) {
					s.pop()
					s.bodies = s.bodies[:len(s.bodies)-1]
					s.pending = s.after[len(s.after)-1]
					s.after = s.after[:len(s.after)-1]
					s.cmd = true // at a line's start
					return s.heredocs()
				}
			}
			continue
		}
		s.i++
	}
	return true
}

// arith scans arithmetic: parentheses nest, and every operator counts.
func (s *nestScan) arith(k nestKind) bool {
	c := s.src[s.i]
	switch {
	case c == '(':
		ok := s.push(nArithPar)
		s.i++
		return ok
	case c == ')' && k == nArithPar:
		s.pop()
		s.i++
	case c == ')' && k == nArith:
		s.pop()
		s.i++
		if s.peek(0) == ')' && s.top().kind == nArithPar {
			s.pop()
			s.i++
		}
		s.cmd = false
	case c == ']' && k == nArithB:
		s.pop()
		s.i++
	case c == '$':
		if opened, ok := s.expansion(); opened {
			return ok
		}
		s.i++
	case c == '"':
		ok := s.push(nDQ)
		s.i++
		return ok
	case c == '`':
		ok := s.push(nBacktick)
		s.i++
		return ok
	case c == '\'':
		s.skipSingle(false)
	case c == '\n':
		s.newline()
		s.i++
	case c == ',':
		s.endStatement()
		s.i++
	case bytes.IndexByte([]byte("+-*/%!~?:<>=&|^"), c) >= 0:
		ok := s.chainOp()
		s.i++
		return ok
	default:
		s.i++
	}
	return true
}
