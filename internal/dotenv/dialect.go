package dotenv

import (
	"bytes"
	"strings"
)

// Dialect is how a loader reads an env file. The same file means
// different things to bash and to the dotenv libraries: a CRLF line keeps
// its \r in bash, a UTF-8 byte-order mark makes bash's first line a
// command (and python-dotenv's first name a different name), a trailing
// "# comment" is a comment in a dotenv file but part of the value for
// `read -r line; export "$line"`, and "export X=1" is no assignment there.
type Dialect uint8

const (
	// Shell: the file's words as the shell reads them (export
	// $(cat F | xargs), env $(cat F) CMD, eval "$(cat F)", a sourced file
	// that is not shell): quotes, export prefixes and comments as a dotenv
	// parser reads them, but a CRLF line keeps its \r and a byte-order mark
	// spoils the first line.
	Shell Dialect = iota
	// Words: the words of $(cat F) without xargs: split at blanks,
	// quotes kept, a CRLF line's \r kept; "export" is a word of its own.
	Words
	// Lines: each line verbatim after the first '=' (while read -r
	// line; do export "$line"; done < F, mapfile): quotes and trailing
	// comments are part of the value, "export X=1" assigns nothing.
	Lines
	// Library: a dotenv library (node --env-file, uv --env-file,
	// dotenv-cli, dotenvx): CRLF, a byte-order mark, export prefixes,
	// quotes and trailing comments are all handled.
	Library
	// Python: python-dotenv (dotenv run): as Library, but a
	// byte-order mark stays part of the first name.
	Python
)

var bom = []byte("\xef\xbb\xbf")

// ParseAs parses an env file as d reads it (Parse is Library without
// the byte-order mark); stripCR says that the
// loader's pipeline removes carriage returns (sed 's/\r$//', tr -d '\r',
// dos2unix).
func ParseAs(name string, src []byte, d Dialect, stripCR bool) ([]Entry, error) {
	hasBOM := bytes.HasPrefix(src, bom)
	if hasBOM {
		src = src[len(bom):]
	}
	switch d {
	case Lines:
		return lineEntries(src, hasBOM, stripCR), nil
	case Words:
		return wordEntries(src, hasBOM, stripCR), nil
	}
	entries, err := Parse(name, src)
	if hasBOM && d != Library {
		// The first line's name starts with the mark: no such variable.
		out := entries[:0:0]
		for _, e := range entries {
			if e.Line != 1 {
				out = append(out, e)
			}
		}
		entries = out
	}
	if d == Shell && !stripCR && bytes.Contains(src, []byte("\r\n")) {
		lines := bytes.Split(src, []byte("\n"))
		for i, e := range entries {
			if e.Line-1 < len(lines) && crEnds(string(lines[e.Line-1])) {
				entries[i].Value += "\r"
			}
		}
	}
	return entries, err
}

// crEnds reports whether the shell reads a line's final \r as part of the
// last word: the line ends in "\r" right after a non-blank, and has no
// comment.
func crEnds(line string) bool {
	t, ok := strings.CutSuffix(line, "\r")
	if !ok || t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		return false
	}
	return !strings.Contains(t, " #") && !strings.Contains(t, "\t#")
}

// lineEntries reads each NAME=rest line verbatim, as `read -r line`
// followed by export "$line" does (leading and trailing blanks trimmed by
// read, comment and blank lines skipped, as loader loops do).
func lineEntries(src []byte, hasBOM, stripCR bool) []Entry {
	var out []Entry
	for i, l := range strings.Split(string(src), "\n") {
		if stripCR {
			l = strings.TrimSuffix(l, "\r")
		}
		col := 1 + len(l) - len(strings.TrimLeft(l, " \t"))
		l = strings.Trim(l, " \t")
		if l == "" || l[0] == '#' || i == 0 && hasBOM {
			continue
		}
		n, v, ok := strings.Cut(l, "=")
		if !ok || !isName(n) {
			continue // export "export X=1" and the like fail in bash
		}
		out = append(out, Entry{Name: n, Value: v, Line: i + 1, Col: col, Export: true})
	}
	return out
}

// wordEntries reads the NAME=VALUE words of each line, split at blanks
// with quotes kept, as $(cat F) hands them to export or a for loop.
// Comment lines are skipped (loaders filter them with grep -v '^#').
func wordEntries(src []byte, hasBOM, stripCR bool) []Entry {
	var out []Entry
	for i, l := range strings.Split(string(src), "\n") {
		if stripCR {
			l = strings.TrimSuffix(l, "\r")
		}
		if t := strings.TrimLeft(l, " \t"); t == "" || t[0] == '#' {
			continue
		}
		col := 1
		for j, w := range strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' }) {
			if i == 0 && j == 0 && hasBOM {
				continue
			}
			n, v, ok := strings.Cut(w, "=")
			if ok && isName(n) {
				c := col + strings.Index(l[col-1:], w)
				out = append(out, Entry{Name: n, Value: v, Line: i + 1, Col: c, Export: true})
			}
		}
	}
	return out
}

// isName reports whether s is a shell variable name: [A-Za-z_][A-Za-z0-9_]*.
func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}
