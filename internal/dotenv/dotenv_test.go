package dotenv

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Entry
		err  string
	}{
		{"plain", "A=1\nB=two\n", []Entry{{Name: "A", Value: "1", Line: 1, Col: 1}, {Name: "B", Value: "two", Line: 2, Col: 1}}, ""},
		{"comments and blanks", "# c\n\n  A=1 # trailing\n", []Entry{{Name: "A", Value: "1", Line: 3, Col: 3}}, ""},
		{"export", "export A=1\nexport B\n", []Entry{{Name: "A", Value: "1", Line: 1, Col: 8, Export: true}}, ""},
		{"single quotes", "A='x $y'\n", []Entry{{Name: "A", Value: "x $y", Line: 1, Col: 1}}, ""},
		{"double quotes", "A=\"x \\\"q\\\" $y\"\n", []Entry{{Name: "A", Value: "x \"q\" $y", Line: 1, Col: 1, Dynamic: true}}, ""},
		{"multi-line", "A=\"1\n2\"\nB=3", []Entry{{Name: "A", Value: "1\n2", Line: 1, Col: 1}, {Name: "B", Value: "3", Line: 3, Col: 1}}, ""},
		{"dynamic", "A=$HOME/x\n", []Entry{{Name: "A", Value: "$HOME/x", Line: 1, Col: 1, Dynamic: true}}, ""},
		{"crlf", "A=1\r\nB=2\r\n", []Entry{{Name: "A", Value: "1", Line: 1, Col: 1}, {Name: "B", Value: "2", Line: 2, Col: 1}}, ""},
		{"empty value", "A=\n", []Entry{{Name: "A", Value: "", Line: 1, Col: 1}}, ""},
		{"bad name", "1A=2\n", nil, "f:1:1: expected a variable name"},
		{"no equals", "A 1\n", nil, "f:1:2: expected '=' after A"},
		{"unterminated", "A='x\n", nil, "unterminated single quote"},
		{"space in value", "A=x y\n", nil, "unquoted space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("f", []byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"A=1\n", "export A='x'\nB=\"y\\\"\"\n# c\n", "A=$B\n", "A=\"\n", "export\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := Parse("f", data)
		lines := 1
		for _, c := range data {
			if c == '\n' {
				lines++
			}
		}
		for _, e := range entries {
			if e.Name == "" || e.Line < 1 || e.Line > lines || e.Col < 1 {
				t.Fatalf("bad entry %+v", e)
			}
		}
		if se, ok := err.(*SyntaxError); ok && (se.Line < 1 || se.Line > lines) {
			t.Fatalf("error outside input: %v", se)
		}
	})
}
