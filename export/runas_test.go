package export

import (
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"sigs.k8s.io/yaml"
)

// TestRunAs: the spec's user and group become the engine's own setting.
func TestRunAs(t *testing.T) {
	tests := []struct {
		name, attrs       string
		unit, job         []string
		runAsUser, runAsG int64 // -1: not set
		note              string
	}{
		{"numeric", `user = "1001"` + "\n" + `group = "1002"`, []string{"User=1001\n", "Group=1002\n"}, []string{`user   = "1001"`}, 1001, 1002, ""},
		{"resolvable", `user = "root"`, []string{"User=root\n"}, []string{`user   = "root"`}, 0, 0, `user = "root" is id 0 on the machine that exported this`},
		{"unknown name", `user = "no-such-user-23"`, []string{"User=no-such-user-23\n"}, []string{`user   = "no-such-user-23"`}, -1, -1, "set runAsUser by hand"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testsupport.WriteTree(t, map[string]string{"spec.hcl": "launch \"api\" {\n  command = [\"sleep\", \"1\"]\n  " + tt.attrs + "\n}\n"})
			l := load(t, dir, "api")
			unit := render(t, l, Options{Engine: Systemd})
			for _, w := range tt.unit {
				if !strings.Contains(unit, w) {
					t.Errorf("unit lacks %q:\n%s", w, unit)
				}
			}
			job := render(t, l, Options{Engine: Nomad})
			for _, w := range tt.job {
				if !strings.Contains(job, w) {
					t.Errorf("job lacks %q:\n%s", w, job)
				}
			}
			manifest := render(t, l, Options{Engine: Kubernetes, Image: "img"})
			if tt.note != "" && !strings.Contains(manifest, tt.note) {
				t.Errorf("manifest lacks the note %q:\n%s", tt.note, manifest)
			}
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(manifest), &doc); err != nil {
				t.Fatal(err)
			}
			sc, _ := findKey(doc, "securityContext").(map[string]any)
			got := func(k string) int64 {
				if v, ok := sc[k].(float64); ok {
					return int64(v)
				}
				return -1
			}
			u, g := got("runAsUser"), got("runAsGroup")
			if u != tt.runAsUser || g != tt.runAsG {
				t.Errorf("runAsUser %d runAsGroup %d, want %d %d:\n%s", u, g, tt.runAsUser, tt.runAsG, manifest)
			}
		})
	}
}

// findKey returns the value of the first key k in a decoded document.
func findKey(v any, k string) any {
	switch v := v.(type) {
	case map[string]any:
		if x, ok := v[k]; ok {
			return x
		}
		for _, x := range v {
			if r := findKey(x, k); r != nil {
				return r
			}
		}
	case []any:
		for _, x := range v {
			if r := findKey(x, k); r != nil {
				return r
			}
		}
	}
	return nil
}
