package dotenv

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Edit is one change SetValue made to an env file: the value text of one
// assignment replaced, or one assignment appended. Every other byte of the
// file is left as it was; Undo puts the replaced bytes back. An Edit is
// plain data, safe for concurrent use while no one changes it.
type Edit struct {
	// Name is the variable assigned.
	Name string
	// Line is the 1-based line of the assignment changed or appended.
	Line int
	// Appended is set when the file did not assign Name and a line was
	// added at its end.
	Appended bool
	// Offset is where New starts in the edited file (and Old in the
	// original one).
	Offset int
	// Old is the text replaced: the old value as written, quotes
	// included; empty when Appended.
	Old string
	// New is the text written in its place: the new value, quoted in the
	// old value's style where the value allows it; when Appended, the
	// whole line with its line ending.
	New string
}

// ErrChanged is returned by Undo when the file no longer holds the text
// the edit wrote where it wrote it.
var ErrChanged = errors.New("the file no longer holds the edited text")

// SetValue returns src with the value of name's last assignment (the one a
// shell sourcing the file ends with) replaced by value, keeping the
// assignment's quoting style where value can be written in it, its
// "export " prefix, any comment after it, the line endings (CRLF stays
// CRLF) and whether the file ends in a newline. When src does not assign
// name, one line "NAME=VALUE" is appended (with "export " when every
// assignment of the file has it). A file that does not parse, or a value
// holding a NUL byte, is an error: nothing is edited.
func SetValue(file string, src []byte, name, value string) ([]byte, Edit, error) {
	out, e, err := setValue(file, src, name, value)
	if err != nil {
		return nil, Edit{}, err
	}
	// The edited file must read back as intended (a last line ending in a
	// backslash would swallow an appended one).
	entries, err := Parse(file, out)
	if got, ok := Map(entries)[name]; err != nil || !ok || got.Value != value || got.Dynamic {
		return nil, Edit{}, fmt.Errorf("%s: setting %s at line %d would not read back as the value given (the line before continues onto it?): edit it by hand", file, name, e.Line)
	}
	return out, e, nil
}

func setValue(file string, src []byte, name, value string) ([]byte, Edit, error) {
	if strings.IndexByte(value, 0) >= 0 {
		return nil, Edit{}, fmt.Errorf("the value of %s holds a NUL byte, which no environment variable can hold", name)
	}
	entries, spans, err := parse(file, src)
	if err != nil {
		return nil, Edit{}, fmt.Errorf("%w: an env file that does not parse is not edited", err)
	}
	last := -1
	exports := len(entries) > 0
	for i, e := range entries {
		if e.Name == name {
			last = i
		}
		exports = exports && e.Export
	}
	if last >= 0 {
		sp := spans[last]
		old := string(src[sp.start:sp.end])
		nv := quoteLike(old, value)
		out := make([]byte, 0, len(src)-len(old)+len(nv))
		out = append(append(append(out, src[:sp.start]...), nv...), src[sp.end:]...)
		return out, Edit{Name: name, Line: entries[last].Line, Offset: sp.start, Old: old, New: nv}, nil
	}
	eol := "\n"
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		eol = "\r\n"
	}
	line := name + "=" + quoteLike("", value)
	if exports {
		line = "export " + line
	}
	nv, at := line+eol, 0
	if len(src) > 0 && src[len(src)-1] != '\n' {
		// No newline at the end: keep it so, after the new line.
		nv, at = eol+line, len(eol)
	}
	out := append(append(make([]byte, 0, len(src)+len(nv)), src...), nv...)
	n := 1 + bytes.Count(out[:len(src)+at], []byte{'\n'})
	return out, Edit{Name: name, Line: n, Appended: true, Offset: len(src), New: nv}, nil
}

// Undo returns src with the edit reversed: the bytes before the edit,
// exactly. It fails with ErrChanged when src does not hold e.New at
// e.Offset (someone changed the file since).
func (e Edit) Undo(src []byte) ([]byte, error) {
	if e.Offset < 0 || e.Offset+len(e.New) > len(src) || string(src[e.Offset:e.Offset+len(e.New)]) != e.New {
		return nil, ErrChanged
	}
	out := make([]byte, 0, len(src)-len(e.New)+len(e.Old))
	out = append(append(append(out, src[:e.Offset]...), e.Old...), src[e.Offset+len(e.New):]...)
	return out, nil
}

// quoteLike writes value for an env file in the style of old (the value
// text it replaces): single-quoted, double-quoted or bare. A style that
// cannot hold value (a bare value with a space, a single-quoted one with a
// quote) gives way to the next that can: single quotes, then double.
func quoteLike(old, value string) string {
	style := byte(0)
	if old != "" && (old[0] == '\'' || old[0] == '"') {
		style = old[0]
	}
	if style == 0 && bareSafe(value) {
		return value
	}
	if style != '"' && !strings.ContainsRune(value, '\'') {
		return "'" + value + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(value); i++ {
		switch c := value[i]; c {
		case '"', '\\', '$', '`':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// bareSafe reports whether value can be written unquoted: a shell and
// this package's reader take it literally.
func bareSafe(value string) bool {
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case isNameByte(c):
		case strings.IndexByte("./:@%+,=-", c) >= 0:
		default:
			return false
		}
	}
	return true
}
