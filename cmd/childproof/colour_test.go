package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/muesli/termenv"
)

func TestPaint(t *testing.T) {
	var b bytes.Buffer
	p := &painter{w: &b, rules: reportPaint(), out: termenv.NewOutput(&b, termenv.WithProfile(termenv.ANSI))}
	p.Write([]byte("verified api: worker pid 1 (api)\n  problem: exited: gone\nmock-llm             alive       42\nold                  pid reused  43\nno newline"))
	want := "\x1b[32mverified\x1b[0m api: worker pid 1 (api)\n" +
		"\x1b[31m  problem:\x1b[0m exited: gone\n" +
		"mock-llm             \x1b[32malive\x1b[0m       42\n" +
		"old                  \x1b[31mpid reused\x1b[0m  43\n" +
		"no newline"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNoColorOffTerminal(t *testing.T) {
	a := &app{}
	var b bytes.Buffer
	if w := a.painted(&b, reportPaint); w != &b {
		t.Error("a buffer (not a terminal) got a painter")
	}
}
