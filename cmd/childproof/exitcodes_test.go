package main

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/verify"
)

// TestExitTable: docs/cli.md's kind table is exitTable, row for row, and
// the codes are the contract's.
func TestExitTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	doc = doc[strings.Index(doc, "| kind | code |"):]
	doc = doc[:strings.Index(doc, "\n\n")]
	row := regexp.MustCompile(`(?m)^\| ([a-z ]+) \| ([0-9]+) \|$`)
	documented := map[errorKind]int{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		n, _ := strconv.Atoi(m[2])
		documented[errorKind(m[1])] = n
	}
	if len(documented) != len(exitTable) {
		t.Errorf("docs/cli.md lists %d kinds, exitTable %d", len(documented), len(exitTable))
	}
	for _, e := range exitTable {
		if n, ok := documented[e.kind]; !ok || n != e.code {
			t.Errorf("%q: exitTable says %d, docs/cli.md %d (listed: %v)", e.kind, e.code, n, ok)
		}
	}
	// The contract's codes.
	want := map[errorKind]int{"ok": 0, "lint or check error finding": 1, "usage error": 2, "verification failed": 3,
		"foreign port holder": 4, "worker exited or not ready": 5, "no launch recorded": 5, "launch locked": 6, "interrupted": 130}
	for k, c := range want {
		if got := exitFor(k); got != c {
			t.Errorf("exitFor(%q) = %d, want %d", k, got, c)
		}
	}
}

// TestExitCodeOfLibraryErrors: each library outcome and kind maps through
// the table.
func TestExitCodeOfLibraryErrors(t *testing.T) {
	for _, tc := range []struct {
		err  *launcher.Error
		want int
	}{
		{&launcher.Error{Outcome: launcher.Invalid, Kind: launcher.KindUsage}, 2},
		{&launcher.Error{Outcome: launcher.Invalid, Kind: launcher.KindNotRecorded}, 5},
		{&launcher.Error{Outcome: launcher.Unproven}, 3},
		{&launcher.Error{Outcome: launcher.Foreign}, 4},
		{&launcher.Error{Outcome: launcher.Exited}, 5},
		{&launcher.Error{Outcome: launcher.Locked, Kind: launcher.KindLocked}, 6},
		{&launcher.Error{Outcome: launcher.Exited, Report: &verify.Report{ExitCode: 3}}, 3},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%v/%s: exit %d, want %d", tc.err.Outcome, tc.err.Kind, got, tc.want)
		}
	}
	var ee *exitError
	if err := notRecorded(errors.New("x"), ""); !errors.As(err, &ee) || ee.code != 5 {
		t.Errorf("notRecorded: %v", err)
	}
}
