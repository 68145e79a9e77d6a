package statedir

import (
	"strings"
	"testing"
)

func TestEncode(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"api", "api"},
		{"mock-llm", "mock-llm"},
		{"a__b", "a_5f_5fb"},
		{"a..b", "a_2e_2eb"},
		{"a.b", "a_2eb"},
		{"a_b", "a_5fb"},
		{"a/b", "a_2fb"},
		{"a\x00b", "a_00b"},
		{"", "_"},
		{"_", "_5f"},
		{"é", "_c3_a9"},
	} {
		if got := Encode(tc.name); got != tc.want {
			t.Errorf("Encode(%q) = %q, want %q", tc.name, got, tc.want)
		}
		if got, ok := Decode(tc.want); !ok || got != tc.name {
			t.Errorf("Decode(%q) = %q, %v; want %q", tc.want, got, ok, tc.name)
		}
	}
}

// TestEncodeInjective: the names of the collision, and every
// name of up to three bytes from an alphabet of the name rule's
// characters and the bytes Legacy rewrote, encode apart, never into a
// string with '.', '/' or NUL, and decode back.
func TestEncodeInjective(t *testing.T) {
	alphabet := []string{"a", "_", ".", "-", "/", "\x00", "5", "f"}
	seen := map[string]string{}
	var walk func(prefix string, depth int)
	n := 0
	walk = func(prefix string, depth int) {
		if prefix != "" {
			n++
			enc := Encode(prefix)
			if other, dup := seen[enc]; dup {
				t.Fatalf("Encode(%q) = Encode(%q) = %q", prefix, other, enc)
			}
			seen[enc] = prefix
			if strings.ContainsAny(enc, "./\x00") {
				t.Fatalf("Encode(%q) = %q holds a separator", prefix, enc)
			}
			if got, ok := Decode(enc); !ok || got != prefix {
				t.Fatalf("Decode(Encode(%q)) = %q, %v", prefix, got, ok)
			}
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			walk(prefix+c, depth-1)
		}
	}
	walk("", 3)
	if Legacy("a__b") != Legacy("a..b") {
		t.Fatal("the legacy naming was expected to collide on a__b and a..b")
	}
	t.Logf("%d names, all encoded apart", n)
}

func TestDecodeRejects(t *testing.T) {
	for _, s := range []string{"", "a.b", "a__b", "a_5", "a_zz", "a_61", "a_2E", "x/y"} {
		if got, ok := Decode(s); ok {
			t.Errorf("Decode(%q) = %q, true; want not an encoding", s, got)
		}
	}
}

func FuzzEncode(f *testing.F) {
	for _, s := range []string{"a__b", "a..b", "", "_5f", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		enc := Encode(name)
		if got, ok := Decode(enc); !ok || got != name {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", name, got, ok)
		}
		if strings.ContainsAny(enc, "./\x00") {
			t.Fatalf("Encode(%q) = %q", name, enc)
		}
		if dec, ok := Decode(name); ok && Encode(dec) != name {
			t.Fatalf("Decode(%q) = %q is not canonical", name, dec)
		}
	})
}
