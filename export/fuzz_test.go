package export

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// FuzzToYAML writes arbitrary strings as keys, values and list items and
// reads them back with sigs.k8s.io/yaml: every string must come back as
// that string (never a number, bool, null or a different text).
func FuzzToYAML(f *testing.F) {
	for _, s := range []string{"", "on", "0", "1e3", "- x", "a: b", "#c", "'q'", "\"", "\\", "\t", "\n", "é", "\u2028", "~", ":", "null", "x\x00y"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, k, v string) {
		in := map[string]any{k: v, "list": []any{v, map[string]any{k: []any{v}}}, "nested": map[string]any{"v": v}}
		out, err := toYAML(in)
		if err != nil {
			return // not UTF-8: encoding/json replaces, nothing to compare
		}
		var back map[string]any
		if err := yaml.Unmarshal(out, &back); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		// What JSON makes of the input (invalid UTF-8 becomes U+FFFD).
		var wantBack map[string]any
		if err := json.Unmarshal(mustJSON(t, in), &wantBack); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantBack, back); diff != "" {
			t.Fatalf("(-input +read back):\n%s\n%s", diff, out)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
