package dotenv

import (
	"fmt"
	"strings"
)

// Entry is one assignment in an env file. It is plain data, safe for
// concurrent use while no one changes it.
type Entry struct {
	// Name is the variable name.
	Name string
	// Value is the assigned value with quotes removed and escapes applied.
	Value string
	// Line and Col locate the start of the name, 1-based (Col counts bytes).
	Line, Col int
	// Export reports whether the line started with "export ".
	Export bool
	// Dynamic reports whether a shell would expand part of the value, so
	// Value is not what a sourcing shell would assign.
	Dynamic bool
}

// SyntaxError is a malformed line in an env file. It is plain data, safe
// for concurrent use while no one changes it.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Parse reads the env file data, named file in errors. It returns every
// well-formed assignment in order, and the first syntax error, if any; the
// entries before that error are still returned.
func Parse(file string, data []byte) ([]Entry, error) {
	entries, _, err := parse(file, data)
	return entries, err
}

// parse is Parse, with the byte span of each entry's value text.
func parse(file string, data []byte) ([]Entry, []span, error) {
	p := &parser{file: file, src: string(data), line: 1, col: 1}
	if strings.HasPrefix(p.src, "\xef\xbb\xbf") {
		// A shell sourcing the file would run "\ufeffNAME=…" as a command.
		return nil, nil, p.errorf("the file starts with a UTF-8 byte order mark (EF BB BF), which a shell does not skip; save it without one")
	}
	if i := strings.IndexByte(p.src, 0); i >= 0 {
		// No process can receive it (execve ends a value there): check
		// and run refuse it alike.
		line := 1 + strings.Count(p.src[:i], "\n")
		col := i - strings.LastIndexByte(p.src[:i], '\n')
		return nil, nil, &SyntaxError{File: file, Line: line, Col: col, Msg: "a NUL byte, which no environment variable can hold"}
	}
	var out []Entry
	var spans []span
	for {
		p.skipBlank()
		if p.eof() {
			return out, spans, nil
		}
		e, ok, err := p.entry()
		if err != nil {
			return out, spans, err
		}
		if ok {
			out = append(out, e)
			spans = append(spans, p.last)
		}
	}
}

// span is where an entry's value text lies in the file: [start, end),
// quotes included, trailing blanks and comment excluded; lineStart is
// where its line begins (the "export " prefix, if any, is after it).
type span struct {
	lineStart, start, end int
}

// Map returns the final value of each name in entries: a later assignment wins.
func Map(entries []Entry) map[string]Entry {
	m := make(map[string]Entry, len(entries))
	for _, e := range entries {
		m[e.Name] = e
	}
	return m
}

// Names returns the distinct names assigned in entries, in first-seen order.
func Names(entries []Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		if !seen[e.Name] {
			seen[e.Name] = true
			out = append(out, e.Name)
		}
	}
	return out
}

type parser struct {
	file      string
	src       string
	pos       int
	line, col int
	last      span // the value span of the last assignment read
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) peek() byte { return p.src[p.pos] }

func (p *parser) advance() byte {
	c := p.src[p.pos]
	p.pos++
	if c == '\n' {
		p.line++
		p.col = 1
	} else {
		p.col++
	}
	return c
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{File: p.file, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)}
}

// skipBlank skips whitespace, empty lines and comment lines.
func (p *parser) skipBlank() {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p.advance()
		case c == '#':
			p.skipLine()
		default:
			return
		}
	}
}

func (p *parser) skipLine() {
	for !p.eof() && p.peek() != '\n' {
		p.advance()
	}
}

func (p *parser) skipSpaces() {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t') {
		p.advance()
	}
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }

func (p *parser) name() string {
	start := p.pos
	if p.eof() || !isNameStart(p.peek()) {
		return ""
	}
	for !p.eof() && isNameByte(p.peek()) {
		p.advance()
	}
	return p.src[start:p.pos]
}

// entry reads one line's assignment. ok is false for a line that assigns
// nothing ("export NAME").
func (p *parser) entry() (e Entry, ok bool, err error) {
	e, err = p.assignment()
	return e, err == nil && e.Name != "", err
}

func (p *parser) assignment() (Entry, error) {
	e := Entry{Line: p.line, Col: p.col}
	p.last = span{lineStart: p.pos - (p.col - 1)}
	name := p.name()
	if name == "" {
		return e, p.errorf("expected a variable name, found %s", showByte(p.peek()))
	}
	if name == "export" && !p.eof() && (p.peek() == ' ' || p.peek() == '\t') {
		p.skipSpaces()
		e.Export = true
		e.Line, e.Col = p.line, p.col
		if name = p.name(); name == "" {
			if p.eof() {
				return e, p.errorf("expected a variable name after export")
			}
			return e, p.errorf("expected a variable name after export, found %s", showByte(p.peek()))
		}
	}
	e.Name = name
	if p.eof() || p.peek() != '=' {
		if e.Export && (p.eof() || p.peek() == '\n' || p.peek() == ' ' || p.peek() == '\t' || p.peek() == '\r' || p.peek() == '#') {
			// "export NAME" alone marks a name exported; it assigns nothing.
			p.skipLine()
			return Entry{}, nil
		}
		// The word is not named: a line without '=' may be a bare
		// value (a token pasted alone), and a value is never shown.
		return e, p.errorf("expected '=' here, after the line's first word (a line is NAME=VALUE, export NAME=VALUE or export NAME)")
	}
	p.advance() // '='
	p.last.start = p.pos
	var b strings.Builder
	for !p.eof() {
		c := p.peek()
		switch {
		case c == '\n' || c == '\r':
			p.last.end = p.pos
			e.Value = b.String()
			p.skipLine()
			return e, nil
		case c == ' ' || c == '\t':
			// Unquoted whitespace ends the value; a comment may follow.
			p.last.end = p.pos
			e.Value = b.String()
			p.skipSpaces()
			if !p.eof() && p.peek() != '#' && p.peek() != '\n' && p.peek() != '\r' {
				return e, p.errorf("unquoted space in the value of %s", name)
			}
			p.skipLine()
			return e, nil
		case c == '\'':
			line, col := p.line, p.col
			p.advance()
			for {
				if p.eof() {
					return e, &SyntaxError{File: p.file, Line: line, Col: col, Msg: fmt.Sprintf("unterminated single quote in the value of %s: the quote opened here is never closed", name)}
				}
				if c := p.advance(); c == '\'' {
					break
				} else {
					b.WriteByte(c)
				}
			}
		case c == '"':
			line, col := p.line, p.col
			p.advance()
			for {
				if p.eof() {
					return e, &SyntaxError{File: p.file, Line: line, Col: col, Msg: fmt.Sprintf("unterminated double quote in the value of %s: the quote opened here is never closed", name)}
				}
				c := p.advance()
				if c == '"' {
					break
				}
				if c == '\\' && !p.eof() {
					switch n := p.peek(); n {
					case '"', '\\', '$', '`':
						b.WriteByte(p.advance())
						continue
					case '\n':
						p.advance()
						continue
					}
				}
				if c == '$' || c == '`' {
					e.Dynamic = true
				}
				b.WriteByte(c)
			}
		case c == '\\':
			p.advance()
			if !p.eof() {
				b.WriteByte(p.advance())
			}
		default:
			if c == '$' || c == '`' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>' {
				e.Dynamic = true
			}
			b.WriteByte(p.advance())
		}
	}
	p.last.end = p.pos
	e.Value = b.String()
	return e, nil
}

// showByte renders an unexpected byte for a message: printable ASCII
// quoted, anything else as its hex value (never a run of a value).
func showByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
