package testsupport

import (
	"strings"
	"testing"
)

func TestScriptScriptSize(t *testing.T) {
	for _, want := range []int{10, 100, 2000, 10000} {
		got := strings.Count(Script(7, want), "\n")
		if got < want-1 || got > want+10 {
			t.Errorf("Script(_, %d) has %d lines", want, got)
		}
	}
	if ScriptSize(0, 1000) != 10 || ScriptSize(999, 1000) != 2000 {
		t.Errorf("sizes span %d..%d, want 10..2000", ScriptSize(0, 1000), ScriptSize(999, 1000))
	}
}
