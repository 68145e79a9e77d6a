package schema

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDependsOn(t *testing.T) {
	launch := func(name string, deps ...string) string {
		q := make([]string, len(deps))
		for i, d := range deps {
			q[i] = `"` + d + `"`
		}
		return "launch \"" + name + "\" {\n  command = [\"true\"]\n  depends_on = [" + strings.Join(q, ", ") + "]\n}\n"
	}
	tests := []struct {
		name  string
		src   string
		diags []string // "line:col: summary: detail"
		start []string
		stop  []string // StopOrder("b") when valid
	}{
		{
			name:  "a chain in any file order",
			src:   launch("c", "b") + launch("a") + launch("b", "a") + launch("d"),
			start: []string{"a", "b", "c", "d"},
			stop:  []string{"c", "b"},
		},
		{
			name:  "unknown name",
			src:   launch("a", "bb") + launch("b"),
			diags: []string{`3:17: Unknown launch in depends_on: depends_on names "bb", which is not a launch of this file; did you mean "b"?`},
		},
		{
			name:  "itself",
			src:   launch("a", "a"),
			diags: []string{`3:17: Launch depends on itself: launch "a" names itself in depends_on`},
		},
		{
			name:  "cycle",
			src:   launch("a", "b") + launch("b", "c") + launch("c", "a"),
			diags: []string{`11:17: Dependency cycle: depends_on makes a cycle: a → b → c → a; up could start none of them first`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "spec.hcl")
			os.WriteFile(p, []byte(tt.src), 0o644)
			f, _, diags := Load(p, LoadOptions{})
			var got []string
			for _, d := range diags {
				got = append(got, strings.Join([]string{itoa(d.Subject.Start.Line) + ":" + itoa(d.Subject.Start.Column), d.Summary, d.Detail}, ": "))
			}
			if d := cmp.Diff(tt.diags, got); d != "" {
				t.Fatalf("diagnostics (-want +got):\n%s", d)
			}
			if tt.diags != nil {
				return
			}
			order, err := f.StartOrder()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.start, names(order)); d != "" {
				t.Errorf("start order (-want +got):\n%s", d)
			}
			stop, err := f.StopOrder("b")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.stop, names(stop)); d != "" {
				t.Errorf("stop order (-want +got):\n%s", d)
			}
			sub, _ := f.StartOrder("c")
			if d := cmp.Diff([]string{"a", "b", "c"}, names(sub)); d != "" {
				t.Errorf("start order of c (-want +got):\n%s", d)
			}
		})
	}
}

func names(ls []*Launch) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
