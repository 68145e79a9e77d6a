package export

import (
	"fmt"
	"os"
	"strings"

	"github.com/childproof/childproof/internal/dotenv"
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
	vars = map[string]string{}
	const (
		preKey = iota
		key
		preValue
		value
		valueEscape
		single
		double
		doubleEscape
		comment
		commentEscape
	)
	state := preKey
	var k, v strings.Builder
	lastKeyWS, lastValueWS := -1, -1 // where trailing blanks began, -1: none
	emit := func() {
		name := k.String()
		if lastKeyWS >= 0 {
			name = name[:lastKeyWS]
		}
		val := v.String()
		if lastValueWS >= 0 {
			val = val[:lastValueWS]
		}
		if schema.IsEnvName(name) {
			vars[name] = val
		} else {
			ignored = append(ignored, name)
		}
		k.Reset()
		v.Reset()
		lastKeyWS, lastValueWS = -1, -1
	}
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch state {
		case preKey:
			switch {
			case c == '#' || c == ';':
				state = comment
			case !isWS(c):
				state = key
				k.WriteByte(c)
			}
		case key:
			switch {
			case c == '\n' || c == '\r':
				state = preKey
				k.Reset()
				lastKeyWS = -1
			case c == '=':
				state = preValue
			default:
				if isWS(c) {
					if lastKeyWS < 0 {
						lastKeyWS = k.Len()
					}
				} else {
					lastKeyWS = -1
				}
				k.WriteByte(c)
			}
		case preValue:
			switch {
			case c == '\n' || c == '\r':
				state = preKey
				emit()
			case c == '\'':
				state = single
			case c == '"':
				state = double
			case c == '\\':
				state = valueEscape
			case !isWS(c):
				state = value
				v.WriteByte(c)
			}
		case value:
			switch {
			case c == '\n' || c == '\r':
				state = preKey
				emit()
			case c == '\\':
				state = valueEscape
				lastValueWS = -1
			default:
				if isWS(c) {
					if lastValueWS < 0 {
						lastValueWS = v.Len()
					}
				} else {
					lastValueWS = -1
				}
				v.WriteByte(c)
			}
		case valueEscape:
			state = value
			if c != '\n' {
				v.WriteByte(c)
			}
		case single:
			if c == '\'' {
				state = value
			} else {
				v.WriteByte(c)
			}
		case double:
			switch c {
			case '"':
				state = value
			case '\\':
				state = doubleEscape
			default:
				v.WriteByte(c)
			}
		case doubleEscape:
			state = double
			switch {
			case strings.IndexByte("\"\\`$", c) >= 0:
				v.WriteByte(c)
			case c == '\n':
			default:
				v.WriteByte('\\')
				v.WriteByte(c)
			}
		case comment:
			if c == '\\' {
				state = commentEscape
			} else if c == '\n' || c == '\r' {
				state = preKey
			}
		case commentEscape:
			state = comment
		}
	}
	if state == preValue || state == value || state == valueEscape || state == single || state == double || state == doubleEscape {
		emit()
	}
	return vars, ignored
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
	data, err := os.ReadFile(l.EnvFile)
	if err != nil {
		return fmt.Errorf("env_file: %w", err)
	}
	entries, err := dotenv.Parse(l.EnvFile, data)
	if err != nil {
		return fmt.Errorf("env_file: %w", err)
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
