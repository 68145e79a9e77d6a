package statedir

import (
	"strings"
)

// Escape is the reserved escape byte of Encode: every byte of a name
// outside [A-Za-z0-9-] is written as Escape and two lower-case hex digits.
const Escape = '_'

// Encode returns the file-name form of a launch name: letters, digits and
// '-' as they are, every other byte (including Escape itself, '.', '/',
// NUL) as "_XX" (lower-case hex). It is injective — two names never share
// a state file — and its output never contains '.', '/' or NUL, so
// suffixes (".json", ".log.1") and prefixes ('.' of temporary files) added
// to it cannot make two launches' files meet. The empty name (never a
// valid launch name) encodes as "_", which no other name produces.
func Encode(name string) string {
	if name == "" {
		return "_"
	}
	plain := true
	for i := 0; i < len(name); i++ {
		if !keep(name[i]) {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	var b strings.Builder
	b.Grow(len(name) + 8)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if keep(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte(Escape)
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xf])
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

func keep(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

// Decode inverts Encode; ok is false when s is not an output of Encode
// (a file of the earlier layout, a stray file).
func Decode(s string) (name string, ok bool) {
	if s == "_" {
		return "", true
	}
	if s == "" {
		return "", false
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keep(c) {
			b = append(b, c)
			continue
		}
		if c != Escape || i+2 >= len(s) {
			return "", false
		}
		hi, lo := unhex(s[i+1]), unhex(s[i+2])
		if hi < 0 || lo < 0 {
			return "", false
		}
		d := byte(hi<<4 | lo)
		if keep(d) {
			return "", false // not canonical: Encode keeps it as is
		}
		b = append(b, d)
		i += 2
	}
	return string(b), true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// Legacy is the file-name form of a launch name in state dirs written
// before Encode ("/" and NUL as "_", ".." as "__"): not injective — a..b
// and a__b shared every file — and kept only to read and migrate those
// state dirs.
func Legacy(name string) string {
	if name == "" {
		return "_"
	}
	return legacyReplacer.Replace(name)
}

var legacyReplacer = strings.NewReplacer("/", "_", "\x00", "_", "..", "__")

// Names reports whether a file stem (a record's file name without
// ".json") is one of name's: its encoding, or its legacy form.
func Names(stem, name string) bool {
	return stem == Encode(name) || stem == Legacy(name)
}
