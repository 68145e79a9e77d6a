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
		{"no equals", "A 1\n", nil, "f:1:2: expected '=' here, after the line's first word (a line is NAME=VALUE, export NAME=VALUE or export NAME)"},
		{"bare value is not shown", "CANARYtoken123456\n", nil, "f:1:18: expected '=' here, after the line's first word (a line is NAME=VALUE, export NAME=VALUE or export NAME)"},
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

func TestParseTrustErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"bom", "\xef\xbb\xbfA=1\n", "f:1:1: the file starts with a UTF-8 byte order mark (EF BB BF), which a shell does not skip; save it without one"},
		{"nul", "A=1\nB=x\x00y\n", "f:2:4: a NUL byte, which no environment variable can hold"},
		{"nul quoted", "A='x\x00'\n", "f:1:5: a NUL byte, which no environment variable can hold"},
		{"unterminated double", "A=1\nB=\"open\nC=3\nD=4\n", "f:2:3: unterminated double quote in the value of B: the quote opened here is never closed"},
		{"unterminated single", "A='x\n\n", "f:1:3: unterminated single quote in the value of A: the quote opened here is never closed"},
		{"non-ascii start", "\xc3\xa9=1\n", "f:1:1: expected a variable name, found byte 0xc3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f", []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Parse = %v, want %s", err, tc.want)
			}
		})
	}
}
