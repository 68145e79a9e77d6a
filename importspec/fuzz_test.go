package importspec

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/childproof/childproof/envres"
)

// FuzzImport checks that whatever a script says, the spec written for it
// is valid HCL syntax: every value the script holds is quoted, and no
// script text is read as a template or a comment's end.
func FuzzImport(f *testing.F) {
	for _, s := range []string{
		"#!/bin/bash\ncd \"$(dirname \"$0\")\"\nexec bash -lic 'exec ./srv --addr 127.0.0.1:9000'\n",
		"#!/bin/bash\nexport A='${x}' B=\"%{y}\" C=$'\\n\\t\"'\nexec ./srv --port \"${PORT:-8080}\" \"$@\"\n",
		"#!/bin/bash\nset -a; . ./.env; set +a\nnohup ./srv --bind 0.0.0.0:80 &\necho $! > pid\nuntil curl -f http://x/h; do sleep 1; done\n",
		"#!/bin/bash\nif [ -n \"$X\" ]; then export Y=1; fi\npkill srv\nexec ./srv --host \"${H:?}\" -p \"$P\"\n",
	} {
		f.Add(s, "A=1\nB=\"}\\\"\"\n", "arg")
	}
	dir := f.TempDir()
	var mu sync.Mutex
	f.Fuzz(func(t *testing.T, script, envFile, arg string) {
		if len(script) > 1<<14 || len(envFile) > 1<<12 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(envFile), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		plan, err := envres.Plan(ctx, envres.Config{Dir: dir, Scripts: []string{"run.sh"}, Args: []string{arg}})
		if err != nil {
			return
		}
		spec := Build(plan, Options{Script: "run.sh", SpecDir: dir, DefaultInherit: []string{"PATH"}})
		if _, diags := hclsyntax.ParseConfig(spec.Text, "spec.hcl", hcl.InitialPos); diags.HasErrors() {
			t.Fatalf("the spec written does not parse: %v\n%s", diags, spec.Text)
		}
		if canon := hclwrite.Format(spec.Text); !bytes.Equal(canon, spec.Text) {
			t.Fatalf("the spec written is not laid out as hclwrite.Format lays it out:\n%s\nwant\n%s", spec.Text, canon)
		}
	})
}
