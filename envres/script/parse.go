package script

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Parser parses scripts with one mvdan.cc/sh parser of each dialect,
// reused from file to file (a parser's buffers are). The zero Parser is
// ready. It is not safe for concurrent use: one analysis uses it.
type Parser struct {
	parsers map[syntax.LangVariant]*syntax.Parser
}

// ArithFallback parses src again the way bash reads "((" or "$((" that
// does not close as arithmetic: as a subshell inside a subshell or a
// command substitution — ((sleep 10; touch f) &) and
// $((echo a; echo b) | sort) are valid bash that mvdan.cc/sh reads as
// arithmetic. The last "((" before the error on its line gets a space,
// "( (", up to three times; the columns after it on that line move by
// one. Nil when that does not help.
func (ps *Parser) ArithFallback(name string, src []byte, err error) *syntax.File {
	for try := 0; try < 3; try++ {
		pe, ok := err.(*ParseError)
		if !ok || pe.Line == 0 || !strings.Contains(pe.Msg, "arithmetic") && !strings.Contains(pe.Msg, "must be followed by") && !strings.Contains(pe.Msg, "not a valid") {
			return nil
		}
		off := offsetOf(src, pe.Line, pe.Column)
		i := bytes.LastIndex(src[:off], []byte("(("))
		if i < offsetOf(src, pe.Line, 1) {
			return nil // none on the error's line
		}
		fixed := make([]byte, 0, len(src)+1)
		fixed = append(append(append(fixed, src[:i+1]...), ' '), src[i+1:]...)
		f, perr := ps.Parse(name, fixed, syntax.LangBash)
		if perr == nil {
			return f
		}
		src, err = fixed, perr
	}
	return nil
}

// offsetOf returns the byte offset of a 1-based line and column in src.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return min(off+max(col-1, 0), len(src))
}

// Script parses the text src of a script file, named name, as the walk
// reads one: refused when binary (BinaryAt) or nested too deep
// (CheckNesting), then in the dialect its shebang names (Dialect, also
// returned), else as bash, else with ArithFallback. The error is a
// *ParseError.
func (ps *Parser) Script(name string, src []byte) (f *syntax.File, lang syntax.LangVariant, err error) {
	if l, c := BinaryAt(src); l > 0 {
		return nil, 0, &ParseError{Pos: Pos{File: name, Line: l, Column: c}, Msg: "binary file (NUL byte), not a shell script"}
	}
	if err := CheckNesting(name, src); err != nil {
		return nil, 0, err
	}
	lang = Dialect(src)
	f, err = ps.Parse(name, src, lang)
	if err != nil && lang != syntax.LangBash {
		// dash accepts more than strict POSIX, and a ksh may be ksh93;
		// try bash before giving up.
		if bf, berr := ps.Parse(name, src, syntax.LangBash); berr == nil {
			f, err = bf, nil
		}
	}
	if err != nil {
		if af := ps.ArithFallback(name, src, err); af != nil {
			f, err = af, nil
		}
	}
	return f, lang, err
}

// Parse parses src, named name, in the dialect lang (0 is bash). The
// error is a *ParseError.
func (ps *Parser) Parse(name string, src []byte, lang syntax.LangVariant) (*syntax.File, error) {
	if lang == 0 {
		lang = syntax.LangBash
	}
	p := ps.parsers[lang]
	if p == nil {
		if ps.parsers == nil {
			ps.parsers = map[syntax.LangVariant]*syntax.Parser{}
		}
		p = syntax.NewParser(syntax.Variant(lang))
		ps.parsers[lang] = p
	}
	f, err := p.Parse(bytes.NewReader(src), name)
	if err != nil {
		return nil, toParseError(name, err)
	}
	return f, nil
}

func toParseError(name string, err error) error {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return &ParseError{Pos: Pos{File: name, Line: int(pe.Pos.Line()), Column: int(pe.Pos.Col())}, Msg: pe.Text, Err: err}
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return &ParseError{Pos: Pos{File: name, Line: int(le.Pos.Line()), Column: int(le.Pos.Col())}, Msg: fmt.Sprintf("%s is not supported in this shell", le.Feature), Err: err}
	}
	return &ParseError{Pos: Pos{File: name, Line: 1, Column: 1}, Msg: err.Error(), Err: err}
}
