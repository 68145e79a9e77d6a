package export

import (
	"fmt"
	"strings"

	"github.com/childproof/childproof/internal/dotenv"
	"github.com/childproof/childproof/internal/inputfile"
	"github.com/childproof/childproof/schema"
)

// systemdEnvFile reads data the way systemd's EnvironmentFile= does (its
// env-file parser, systemd 252; measured against a booted systemd in
// export/enginetest): '#' or ';' at the start of a line is a comment, and
// nowhere else; quotes count only where a value (or a quoted run)
// starts, and a value may go on after the closing quote; unquoted, a
// backslash takes the next character as it is (a newline continues the
// line) and trailing blanks are dropped; in double quotes \" \\ \` \$
// are escapes and other backslashes stay; no variable is expanded. A
// key that is not a variable name ("export NAME") makes systemd ignore
// the line. It returns the final value of each name, and the ignored keys.
func systemdEnvFile(data string) (vars map[string]string, ignored []string) {
	ps := &envFileParser{vars: map[string]string{}, lastKeyWS: -1, lastValueWS: -1}
	for i := 0; i < len(data); i++ {
		ps.step(data[i])
	}
	ps.finish()
	return ps.vars, ps.ignored
}

// envFileState is where systemdEnvFile's parser is in a line.
type envFileState int

// The parser's states: before a key, in it, before a value, in an
// unquoted value or after its backslash, in single or double quotes (or
// after a backslash there), in a comment or after its backslash.
const (
	efPreKey envFileState = iota
	efKey
	efPreValue
	efValue
	efValueEscape
	efSingle
	efDouble
	efDoubleEscape
	efComment
	efCommentEscape
)

// envFileParser is systemdEnvFile's state machine, fed a byte at a time
// (step) and then finished. systemdEnvFile makes one (vars set, both
// last*WS -1).
type envFileParser struct {
	state                  envFileState
	k, v                   strings.Builder
	lastKeyWS, lastValueWS int // where trailing blanks began, -1: none
	vars                   map[string]string
	ignored                []string
}

// envFileWS reports whether c is a blank to systemd's env-file parser.
func envFileWS(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// step takes the next byte c in the parser's state.
func (ps *envFileParser) step(c byte) {
	switch ps.state {
	case efPreKey:
		ps.preKey(c)
	case efKey:
		ps.key(c)
	case efPreValue:
		ps.preValue(c)
	case efValue:
		ps.value(c)
	case efValueEscape:
		ps.state = efValue
		if c != '\n' {
			ps.v.WriteByte(c)
		}
	case efSingle:
		if c == '\'' {
			ps.state = efValue
		} else {
			ps.v.WriteByte(c)
		}
	case efDouble, efDoubleEscape:
		ps.double(c)
	case efComment:
		if c == '\\' {
			ps.state = efCommentEscape
		} else if c == '\n' || c == '\r' {
			ps.state = efPreKey
		}
	case efCommentEscape:
		ps.state = efComment
	}
}

// preKey takes c before a key: a comment starts, a key starts, or a
// blank is skipped.
func (ps *envFileParser) preKey(c byte) {
	switch {
	case c == '#' || c == ';':
		ps.state = efComment
	case !envFileWS(c):
		ps.state = efKey
		ps.k.WriteByte(c)
	}
}

// key takes c in a key: a line end drops the key, '=' ends it, and
// anything else is part of it (noting where trailing blanks begin).
func (ps *envFileParser) key(c byte) {
	switch {
	case c == '\n' || c == '\r':
		ps.state = efPreKey
		ps.k.Reset()
		ps.lastKeyWS = -1
	case c == '=':
		ps.state = efPreValue
	default:
		trailingBlank(&ps.lastKeyWS, ps.k.Len(), c)
		ps.k.WriteByte(c)
	}
}

// trailingBlank keeps *at at the offset where the trailing blanks of a
// key or value begin, before c is written at offset n: a blank starts a
// run (unless one is open), anything else ends it (-1).
func trailingBlank(at *int, n int, c byte) {
	switch {
	case !envFileWS(c):
		*at = -1
	case *at < 0:
		*at = n
	}
}

// preValue takes c after '=': a line end emits an empty value, a quote
// or backslash starts a quoted run or an escape, a blank is skipped.
func (ps *envFileParser) preValue(c byte) {
	switch {
	case c == '\n' || c == '\r':
		ps.state = efPreKey
		ps.emit()
	case c == '\'':
		ps.state = efSingle
	case c == '"':
		ps.state = efDouble
	case c == '\\':
		ps.state = efValueEscape
	case !envFileWS(c):
		ps.state = efValue
		ps.v.WriteByte(c)
	}
}

// value takes c in an unquoted value: a line end emits it, a backslash
// escapes the next byte, anything else is part of it (noting where
// trailing blanks begin).
func (ps *envFileParser) value(c byte) {
	switch {
	case c == '\n' || c == '\r':
		ps.state = efPreKey
		ps.emit()
	case c == '\\':
		ps.state = efValueEscape
		ps.lastValueWS = -1
	default:
		trailingBlank(&ps.lastValueWS, ps.v.Len(), c)
		ps.v.WriteByte(c)
	}
}

// double takes c in double quotes or after a backslash there: \" \\ \`
// \$ are escapes, a backslash-newline is dropped, other backslashes stay.
func (ps *envFileParser) double(c byte) {
	if ps.state == efDoubleEscape {
		ps.state = efDouble
		switch {
		case strings.IndexByte("\"\\`$", c) >= 0:
			ps.v.WriteByte(c)
		case c == '\n':
		default:
			ps.v.WriteByte('\\')
			ps.v.WriteByte(c)
		}
		return
	}
	switch c {
	case '"':
		ps.state = efValue
	case '\\':
		ps.state = efDoubleEscape
	default:
		ps.v.WriteByte(c)
	}
}

// finish emits the last line's variable when data ends inside a value.
func (ps *envFileParser) finish() {
	switch ps.state {
	case efPreValue, efValue, efValueEscape, efSingle, efDouble, efDoubleEscape:
		ps.emit()
	}
}

// emit records the key and value read so far, without their trailing
// blanks: the value of a variable name, or an ignored key.
func (ps *envFileParser) emit() {
	name := ps.k.String()
	if ps.lastKeyWS >= 0 {
		name = name[:ps.lastKeyWS]
	}
	val := ps.v.String()
	if ps.lastValueWS >= 0 {
		val = val[:ps.lastValueWS]
	}
	if schema.IsEnvName(name) {
		ps.vars[name] = val
	} else {
		ps.ignored = append(ps.ignored, name)
	}
	ps.k.Reset()
	ps.v.Reset()
	ps.lastKeyWS, ps.lastValueWS = -1, -1
}

// checkSystemdEnvFile refuses an env file that systemd's EnvironmentFile=
// would read otherwise than childproof run does, naming the first line
// that differs (never a value). Normalising it into another file would
// write its values, which are secrets.
func (p *plan) checkSystemdEnvFile() error {
	l := p.l
	if l.EnvFile == "" {
		return nil
	}
	data, entries, err := p.readEnvFile()
	if err != nil {
		return err
	}
	sd, _ := systemdEnvFile(string(data))
	ours := dotenv.Map(entries)
	for _, e := range entries {
		last := ours[e.Name]
		if last.Line != e.Line {
			continue // a later line sets it: judge that one
		}
		got, ok := sd[e.Name]
		var why string
		switch {
		case !ok && e.Export:
			why = "systemd ignores a line that starts with \"export \" (\"Ignoring invalid environment assignment\"), so the worker would not get it"
		case !ok:
			why = "systemd's EnvironmentFile= would not set it"
		case got != e.Value:
			why = "systemd's EnvironmentFile= reads this value differently (a \" #\" after an unquoted value is part of it there, quotes count only at the start of a value, and no $ is expanded)"
		default:
			continue
		}
		return &UnsupportedError{Engine: Systemd, Part: "env_file",
			Feature: fmt.Sprintf("env_file line %d (%s)", e.Line, e.Name),
			Reason:  fmt.Sprintf("%s:%d: %s; write the line as NAME=VALUE with no \"export \" and no comment after the value (quote a value that has one), or set it in env", l.EnvFile, e.Line, why)}
	}
	for name := range sd {
		if _, ok := ours[name]; !ok {
			return &UnsupportedError{Engine: Systemd, Part: "env_file", Feature: fmt.Sprintf("env_file (%s)", name),
				Reason: fmt.Sprintf("%s: systemd's EnvironmentFile= would set %s, which childproof run does not; remove or fix that line", l.EnvFile, name)}
		}
	}
	return nil
}

// readEnvFile reads the launch's env file as childproof run does: its
// bytes (a regular file of bounded size) and its entries.
func (p *plan) readEnvFile() ([]byte, []dotenv.Entry, error) {
	data, err := inputfile.Read(p.l.EnvFile, schema.MaxFileSize)
	if err != nil {
		return nil, nil, fmt.Errorf("env_file: %w", err)
	}
	entries, err := dotenv.Parse(p.l.EnvFile, data)
	if err != nil {
		return nil, nil, fmt.Errorf("env_file: %w", err)
	}
	return data, entries, nil
}
