package output

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestLinesBounded: a Lines keeps the last MaxLines lines and at most
// MaxLinesBytes, drops the oldest (Dropped counts them), and keeps a line
// longer than MaxLineBytes as pieces.
func TestLinesBounded(t *testing.T) {
	var l Lines
	for i := range MaxLines + 5 {
		fmt.Fprintf(&l, "line %d\n", i)
	}
	got := l.Lines()
	if len(got) != MaxLines || got[0] != "line 5" || got[len(got)-1] != fmt.Sprintf("line %d", MaxLines+4) || l.Dropped() != 5 {
		t.Errorf("kept %d lines from %q to %q, dropped %d; want %d from \"line 5\", dropped 5", len(got), got[0], got[len(got)-1], l.Dropped(), MaxLines)
	}

	var big Lines
	line := strings.Repeat("x", 999) + "\n"
	for range MaxLinesBytes/1000 + 100 {
		big.Write([]byte(line))
	}
	n, kept := 0, 0
	for _, s := range big.Lines() {
		n++
		kept += len(s)
	}
	if kept > MaxLinesBytes || n != MaxLinesBytes/999 || big.Dropped() == 0 {
		t.Errorf("kept %d lines, %d bytes, dropped %d; want at most %d bytes (%d lines)", n, kept, big.Dropped(), MaxLinesBytes, MaxLinesBytes/999)
	}

	var long Lines
	long.Write([]byte(strings.Repeat("a", 2*MaxLineBytes+10)))
	if got := long.Lines(); len(got) != 2 || len(got[0]) != MaxLineBytes {
		t.Errorf("an unended line of %d bytes: kept %d pieces, want 2 of %d (the rest pending)", 2*MaxLineBytes+10, len(got), MaxLineBytes)
	}
	long.Write([]byte("b\nnext\n"))
	if got := long.Lines(); len(got) != 4 || got[2] != strings.Repeat("a", 10)+"b" || got[3] != "next" {
		t.Errorf("after its end: %d lines, last %q", len(got), got[len(got)-1])
	}
}

// TestLinesWaitDropped: Wait matches the lines kept and those to come; a
// match among dropped lines is not counted, and a wait that ends says
// how many lines were dropped before it could see them.
func TestLinesWaitDropped(t *testing.T) {
	var l Lines
	l.Write([]byte("ready 1\n"))
	for i := range MaxLines {
		fmt.Fprintf(&l, "filler %d\n", i)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	re := regexp.MustCompile(`^ready`)
	got, err := l.Wait(ended, re, 1)
	if len(got) != 0 || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "1 earlier lines were dropped") {
		t.Errorf("a match only among dropped lines: got %q, %v", got, err)
	}
	l.Write([]byte("ready 2\n"))
	got, err = l.Wait(ended, re, 1)
	if err != nil || len(got) != 1 || got[0] != "ready 2" {
		t.Errorf("a kept match: got %q, %v", got, err)
	}
	got, err = l.Wait(ended, regexp.MustCompile(`^filler (1|2)$`), 2)
	if err != nil || len(got) != 2 || got[0] != "filler 1" || got[1] != "filler 2" {
		t.Errorf("kept matches in order: got %q, %v", got, err)
	}
	var none Lines
	if _, err := none.Wait(ended, re, 1); err != context.Canceled {
		t.Errorf("nothing dropped: the error is ctx's own, got %v", err)
	}
}
