package proc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Stat holds the fields of /proc/PID/stat childproof uses. It is plain
// data, safe for concurrent use while no one changes it.
type Stat struct {
	Pid     int
	Comm    string // without the parentheses; may contain spaces and ')'
	State   byte
	PPid    int
	Pgrp    int
	Session int
	// CPUTicks is the CPU time the process has used, user and system
	// (fields 14 and 15), in clock ticks.
	CPUTicks uint64
	// StartTime is the start time in clock ticks since boot (field 22).
	StartTime uint64
	// ArgStart, ArgEnd, EnvStart and EnvEnd (fields 48–51) bound the argv
	// and environment areas in the process's memory; 0 when the kernel
	// does not show them (an older kernel, or no ptrace access to it).
	ArgStart, ArgEnd, EnvStart, EnvEnd uint64
}

// ErrStatSyntax is a malformed stat line.
var ErrStatSyntax = errors.New("malformed stat")

// ParseStat parses a /proc/PID/stat line. comm is found between the first
// '(' and the LAST ')', since comm itself may hold spaces and parentheses.
// The fields after comm are sliced from b, not copied (a stat is read and
// parsed a dozen times a start).
func ParseStat(b []byte) (Stat, error) {
	open := bytes.IndexByte(b, '(')
	cl := bytes.LastIndexByte(b, ')')
	if open < 1 || cl < open {
		return Stat{}, fmt.Errorf("%w: no (comm)", ErrStatSyntax)
	}
	var s Stat
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return Stat{}, fmt.Errorf("%w: pid: %v", ErrStatSyntax, err)
	}
	s.Pid = pid
	s.Comm = string(b[open+1 : cl])
	var buf [64][]byte
	rest := fields(b[cl+1:], buf[:0])
	// rest[0] is field 3 (state); field N is rest[N-3].
	if len(rest) < 20 {
		return Stat{}, fmt.Errorf("%w: %d fields after comm", ErrStatSyntax, len(rest))
	}
	if len(rest[0]) != 1 || !isStateLetter(rest[0][0]) {
		return Stat{}, fmt.Errorf("%w: state %q", ErrStatSyntax, rest[0])
	}
	s.State = rest[0][0]
	ints := []*int{&s.PPid, &s.Pgrp, &s.Session}
	for i, p := range ints {
		v, err := atoi(rest[1+i])
		if err != nil {
			return Stat{}, fmt.Errorf("%w: field %d: %v", ErrStatSyntax, 4+i, err)
		}
		*p = v
	}
	for _, i := range []int{11, 12} {
		v, err := parseUint(rest[i])
		if err != nil {
			return Stat{}, fmt.Errorf("%w: field %d: %v", ErrStatSyntax, i+3, err)
		}
		s.CPUTicks += v
	}
	st, err := parseUint(rest[19])
	if err != nil {
		return Stat{}, fmt.Errorf("%w: starttime: %v", ErrStatSyntax, err)
	}
	s.StartTime = st
	if len(rest) >= 49 {
		for i, p := range []*uint64{&s.ArgStart, &s.ArgEnd, &s.EnvStart, &s.EnvEnd} {
			v, err := parseUint(rest[45+i])
			if err != nil {
				return Stat{}, fmt.Errorf("%w: field %d: %v", ErrStatSyntax, 48+i, err)
			}
			*p = v
		}
	}
	return s, nil
}

// fields is strings.Fields of b, appended to out as slices of b: split at
// ASCII white space when b is ASCII (a kernel's stat line), else as
// bytes.Fields splits.
func fields(b []byte, out [][]byte) [][]byte {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return append(out, bytes.Fields(b)...)
		}
	}
	start := -1
	for i, c := range b {
		if asciiSpace(c) {
			if start >= 0 {
				out = append(out, b[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, b[start:])
	}
	return out
}

// asciiSpace reports whether c is white space as unicode.IsSpace has it.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// atoi is strconv.Atoi of f, without making a string of the digits a
// kernel writes (an optional sign and at most 18 digits).
func atoi(f []byte) (int, error) {
	d := f
	neg := false
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		neg, d = d[0] == '-', d[1:]
	}
	v, ok := digits(d, 18)
	if !ok {
		return strconv.Atoi(string(f))
	}
	if neg {
		return -int(v), nil
	}
	return int(v), nil
}

// parseUint is strconv.ParseUint(f, 10, 64), without making a string of
// at most 19 digits.
func parseUint(f []byte) (uint64, error) {
	v, ok := digits(f, 19)
	if !ok {
		return strconv.ParseUint(string(f), 10, 64)
	}
	return v, nil
}

// digits is the value of d when it is 1 to most decimal digits.
func digits(d []byte, most int) (uint64, bool) {
	if len(d) == 0 || len(d) > most {
		return 0, false
	}
	var v uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// isStateLetter reports whether c can be a process state (R, S, D, Z, T, t,
// X, I, …): the kernel writes one ASCII letter.
func isStateLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// Status holds the fields of /proc/PID/status childproof uses. It is plain
// data, safe for concurrent use while no one changes it.
type Status struct {
	Name string
	// UID is the real uid; EUID the effective one.
	UID, EUID int
	PPid      int
	// NSpid lists the pid in each nested pid namespace (outermost first).
	NSpid []int
}

// ParseStatus parses /proc/PID/status.
func ParseStatus(b []byte) (Status, error) {
	var s Status
	haveUID := false
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Name":
			s.Name = v
		case "Uid":
			f := strings.Fields(v)
			if len(f) < 2 {
				return Status{}, errors.New("malformed Uid line")
			}
			var err1, err2 error
			s.UID, err1 = strconv.Atoi(f[0])
			s.EUID, err2 = strconv.Atoi(f[1])
			if err1 != nil || err2 != nil {
				return Status{}, errors.New("malformed Uid line")
			}
			haveUID = true
		case "PPid":
			s.PPid, _ = strconv.Atoi(v)
		case "NSpid":
			for _, f := range strings.Fields(v) {
				n, err := strconv.Atoi(f)
				if err == nil {
					s.NSpid = append(s.NSpid, n)
				}
			}
		}
	}
	if !haveUID {
		return Status{}, errors.New("no Uid line")
	}
	return s, nil
}
