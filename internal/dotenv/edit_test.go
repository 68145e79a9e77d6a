package dotenv

import (
	"errors"
	"testing"
)

func TestSetValue(t *testing.T) {
	tests := []struct {
		name, in, set, value, want string
		line                       int
		appended                   bool
	}{
		{"bare", "A=1\nB=2\n", "A", "0", "A=0\nB=2\n", 1, false},
		{"last wins", "A=1\nA=2 # again\nB=3\n", "A", "0", "A=1\nA=0 # again\nB=3\n", 2, false},
		{"export kept", "# c\nexport  A=1\n", "A", "0", "# c\nexport  A=0\n", 2, false},
		{"single quotes", "A='1'\n", "A", "x y", "A='x y'\n", 1, false},
		{"double quotes", "A=\"1\"\n", "A", `a"$b`, "A=\"a\\\"\\$b\"\n", 1, false},
		{"bare needs quotes", "A=1\n", "A", "x y", "A='x y'\n", 1, false},
		{"single gives way", "A='1'\n", "A", "it's", "A=\"it's\"\n", 1, false},
		{"crlf", "A=1\r\nB=2\r\n", "A", "0", "A=0\r\nB=2\r\n", 1, false},
		{"no final newline", "B=2\nA=1", "A", "0", "B=2\nA=0", 2, false},
		{"multi-line value", "A=\"1\n2\"\nB=3\n", "A", "0", "A=\"0\"\nB=3\n", 1, false},
		{"empty value", "A=\nB=1\n", "A", "0", "A=0\nB=1\n", 1, false},
		{"to empty", "A=1\n", "A", "", "A=\n", 1, false},
		{"append", "B=2\n", "A", "0", "B=2\nA=0\n", 2, true},
		{"append crlf", "B=2\r\n", "A", "0", "B=2\r\nA=0\r\n", 2, true},
		{"append no final newline", "B=2", "A", "0", "B=2\nA=0", 2, true},
		{"append export style", "export B=2\n", "x", "0", "export B=2\nexport x=0\n", 2, true},
		{"append empty file", "", "A", "0", "A=0\n", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, e, err := SetValue("f", []byte(tt.in), tt.set, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("SetValue = %q, want %q", out, tt.want)
			}
			if e.Line != tt.line || e.Appended != tt.appended {
				t.Errorf("edit at line %d appended %v, want %d %v", e.Line, e.Appended, tt.line, tt.appended)
			}
			entries, err := Parse("f", out)
			if err != nil {
				t.Fatal(err)
			}
			if m := Map(entries); m[tt.set].Value != tt.value {
				t.Errorf("the edited file assigns %q, want %q", m[tt.set].Value, tt.value)
			}
			back, err := e.Undo(out)
			if err != nil || string(back) != tt.in {
				t.Errorf("Undo = %q, %v; want %q", back, err, tt.in)
			}
		})
	}
}

func TestSetValueRefuses(t *testing.T) {
	if _, _, err := SetValue("f", []byte("A='x\n"), "A", "1"); err == nil {
		t.Error("an env file that does not parse was edited")
	}
	if _, _, err := SetValue("f", []byte("A=1\n"), "A", "a\x00b"); err == nil {
		t.Error("a NUL byte was written")
	}
}

func TestUndoChanged(t *testing.T) {
	out, e, err := SetValue("f", []byte("A=1\nB=2\n"), "A", "0")
	if err != nil {
		t.Fatal(err)
	}
	out[2] = '9' // someone edits the value again
	if _, err := e.Undo(out); !errors.Is(err, ErrChanged) {
		t.Errorf("Undo of a changed file = %v, want ErrChanged", err)
	}
	if _, err := e.Undo(out[:1]); !errors.Is(err, ErrChanged) {
		t.Errorf("Undo of a truncated file = %v, want ErrChanged", err)
	}
}

// FuzzSetValue: an edit of a file that parses gives a file that parses and
// assigns the value, and its undo gives the original bytes back.
func FuzzSetValue(f *testing.F) {
	f.Add([]byte("A=1\nB=2\n"), "A", "0")
	f.Add([]byte("export A='x'\r\n# c\r\n"), "A", "it's \"q\" $x")
	f.Add([]byte("B=\"1\n2\""), "A", "v")
	f.Add([]byte(""), "A", "")
	f.Fuzz(func(t *testing.T, src []byte, name, value string) {
		if len(name) == 0 || !isNameStart(name[0]) || len(name) > 64 || name == "export" {
			return
		}
		for i := 0; i < len(name); i++ {
			if !isNameByte(name[i]) {
				return
			}
		}
		if _, err := Parse("f", src); err != nil {
			return
		}
		out, e, err := SetValue("f", src, name, value)
		if err != nil {
			return // a NUL in the value
		}
		entries, err := Parse("f", out)
		if err != nil {
			t.Fatalf("the edited file does not parse: %v\n%q", err, out)
		}
		if got := Map(entries)[name]; got.Value != value || got.Dynamic {
			t.Fatalf("the edited file assigns %q (dynamic %v), want %q\n%q", got.Value, got.Dynamic, value, out)
		}
		back, err := e.Undo(out)
		if err != nil || string(back) != string(src) {
			t.Fatalf("Undo = %q, %v; want %q", back, err, src)
		}
	})
}
