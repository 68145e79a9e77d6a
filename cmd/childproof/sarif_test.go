package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/childproof/childproof/internal/testsupport/schemacheck"
)

// TestSARIFOutputSchema validates what `lint --format sarif` and `check
// --format sarif` print — findings of every rule, a chain, spec errors
// and warnings — against the SARIF 2.1.0 schema vendored in
// internal/testsupport/schemacheck (CheckSARIF).
func TestSARIFOutputSchema(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"run.sh": "#!/bin/bash -l\nset -a; . ./.env; set +a\nexport API_MODE=prod\nunset KEY\nconda activate x\n" +
			"nohup ./api --host 0.0.0.0 & echo $! > api.pid\nexport HF_XET_DISABLE=1\nsource \"$X/lib.sh\"\nexec bash ./child.sh\n",
		"child.sh":  "#!/bin/bash\nexec env -i ./worker --bind [::]:80\n",
		".env":      "API_MODE=other\nA=1\n",
		"bad.hcl":   "launch \"a\" {\n  comand = [\"true\"]\n  port \"p\" { number = 70000 }\n}\n",
		"warn.hcl":  "launch \"a\" {\n  command = [\"bash\", \"-lic\", \"./api --host 0.0.0.0\"]\n  env = { HF_XET_DISABLE = \"1\" }\n}\n",
		"naïve.hcl": "launch \"é\" {\n  dispatch = [\"run.sh\"]\n  env = { API_MODE = \"test\" }\n}\n",
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, args := range [][]string{
		{"lint", "--format", "sarif", "--override", "API_MODE=test", "--require", "KEY", "run.sh"},
		{"lint", "--format", "sarif", "run.sh", "child.sh"},
		{"check", "--format", "sarif", "bad.hcl"},
		{"check", "--format", "sarif", "warn.hcl"},
		{"check", "--format", "sarif", "naïve.hcl"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, nil, &out, &errb)
		if code > 2 || out.Len() == 0 {
			t.Fatalf("%v: exit %d, stdout %d bytes, stderr %s", args, code, out.Len(), errb.String())
		}
		if err := schemacheck.CheckSARIF(out.Bytes()); err != nil {
			t.Errorf("%v: SARIF output %v", args, err)
		}
	}
}
