package schema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestParseIsLoad: a spec parsed from memory is the spec loaded from a
// file with the same name and bytes, diagnostics included.
func TestParseIsLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "childproof.hcl")
	opts := LoadOptions{LookupEnv: lookupFrom(map[string]string{"HOME": "/root"}), MissingProgramOK: true}
	for name, src := range map[string]string{
		"valid":   contractSpec,
		"invalid": "launch \"a\" {\n  comand = [\"x\"]\n}\n",
		"empty":   "  \n",
		"nul":     "launch \"a\" {}\x00",
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			lf, _, ld := Load(path, opts)
			pf, _, pd := Parse([]byte(src), path, opts)
			if diff := cmp.Diff(ld.Error(), pd.Error()); diff != "" {
				t.Errorf("diagnostics differ (-Load +Parse):\n%s", diff)
			}
			if diff := cmp.Diff(lf, pf, cmpopts.IgnoreUnexported(File{}, Launch{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("files differ (-Load +Parse):\n%s", diff)
			}
		})
	}
}
