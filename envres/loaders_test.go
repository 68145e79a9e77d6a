package envres

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoaderClass: what is a load and what is not, by what the
// substitution's output becomes (contract §4; issue #28 item 4).
func TestLoaderClass(t *testing.T) {
	const sh = "#!/bin/bash\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		cfg   Config
		want  []at
	}{
		// A substitution after '=' is a value: a dynamic assignment, not
		// an env-file load (devcontainers' find_version_from_git_tags,
		// the Docker _FILE secrets convention).
		{"declare -g dynamic name with a value", map[string]string{"run.sh": sh + "n=VER\ndeclare -g ${n}=\"$(git ls-remote --tags x | head -n 1)\"\nexport \"$n\"=\"$(cat \"$SECRET_FILE\")\"\nexec ./api\n"},
			Config{}, []at{}},
		{"export of a substitution of an unknown file is still a load", map[string]string{"run.sh": sh + "export $(grep -v '^#' \"$ENV_FILE\" | xargs)\nexec ./api\n"},
			Config{}, []at{{"env-file-load", "run.sh", 2, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := lintFiles(t, tc.files, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, reduce(res)); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}
