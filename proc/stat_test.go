package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// parseStatFields is ParseStat as it was before it sliced the fields from
// its input: strings.Fields and strconv on copies. FuzzParseStatSame holds
// ParseStat to it.
func parseStatFields(b []byte) (Stat, error) {
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
	rest := strings.Fields(string(b[cl+1:]))
	if len(rest) < 20 {
		return Stat{}, fmt.Errorf("%w: %d fields after comm", ErrStatSyntax, len(rest))
	}
	if len(rest[0]) != 1 || !isStateLetter(rest[0][0]) {
		return Stat{}, fmt.Errorf("%w: state %q", ErrStatSyntax, rest[0])
	}
	s.State = rest[0][0]
	ints := []*int{&s.PPid, &s.Pgrp, &s.Session}
	for i, p := range ints {
		v, err := strconv.Atoi(rest[1+i])
		if err != nil {
			return Stat{}, fmt.Errorf("%w: field %d: %v", ErrStatSyntax, 4+i, err)
		}
		*p = v
	}
	for _, i := range []int{11, 12} {
		v, err := strconv.ParseUint(rest[i], 10, 64)
		if err != nil {
			return Stat{}, fmt.Errorf("%w: field %d: %v", ErrStatSyntax, i+3, err)
		}
		s.CPUTicks += v
	}
	st, err := strconv.ParseUint(rest[19], 10, 64)
	if err != nil {
		return Stat{}, fmt.Errorf("%w: starttime: %v", ErrStatSyntax, err)
	}
	s.StartTime = st
	if len(rest) >= 49 {
		for i, p := range []*uint64{&s.ArgStart, &s.ArgEnd, &s.EnvStart, &s.EnvEnd} {
			v, err := strconv.ParseUint(rest[45+i], 10, 64)
			if err != nil {
				return Stat{}, fmt.Errorf("%w: field %d: %v", ErrStatSyntax, 48+i, err)
			}
			*p = v
		}
	}
	return s, nil
}

// FuzzParseStatSame: ParseStat gives what parsing copies of the fields
// gave, stat and error alike, on any input.
func FuzzParseStatSame(f *testing.F) {
	self, err := os.ReadFile("/proc/self/stat")
	if err == nil {
		f.Add(self)
	}
	f.Add([]byte("42 (sleep) S 1 42 42 0 -1 4194560 96 0 0 0 0 0 0 0 20 0 1 0 12345 2367488 129"))
	f.Add([]byte("7 (a) b (c) R 2 3 4 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0"))
	f.Add([]byte("7 (x) R +2 -3 4 0 -1 0 0 0 0 0 18446744073709551615 1 0 0 20 0 1 0 99999999999999999999 0 0"))
	f.Add([]byte("7 (x)\tR\u00a02 3\u20004 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0"))
	f.Add([]byte("7 (x) R 2 3 4 0 -1 0 0 0 0 0 1_0 0 0 0 20 0 1 0 99 0 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gerr := ParseStat(b)
		want, werr := parseStatFields(b)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || got != want {
			t.Fatalf("ParseStat(%q) = %+v, %v; want %+v, %v", b, got, gerr, want, werr)
		}
	})
}

func BenchmarkParseStat(b *testing.B) {
	line, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseStat(line); err != nil {
			b.Fatal(err)
		}
	}
}
