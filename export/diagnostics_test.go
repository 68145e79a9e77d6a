package export

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/lintreport"
)

// TestUnsupportedDiagnostics: an UnsupportedError as `childproof export`
// writes it (lintreport.WriteDiagnostics): at its part with the source
// line, but a part holding a secret value shows its place only, and an
// error without a subject (or whose file is gone) has no line.
func TestUnsupportedDiagnostics(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"key.txt": canary, "spec.hcl": `launch "f" {
  command = ["sleep", file("key.txt")]
}
launch "lit" {
  command = ["sleep", "--token=` + canary + `"]
  env     = { TOKEN = "` + canary + `" }
  secret  = ["TOKEN"]
}`})
	rendered := func(name string) *UnsupportedError {
		t.Helper()
		_, err := Render(context.Background(), load(t, dir, name), Options{Engine: Systemd})
		var ue *UnsupportedError
		if !asUnsupported(err, &ue) {
			t.Fatalf("%s: err = %v, want an UnsupportedError", name, err)
		}
		return ue
	}
	spec := filepath.Join(dir, "spec.hcl")
	gone := &UnsupportedError{Engine: Nomad, Feature: "env[A]", Reason: "why", Part: "env[A]",
		Subject: &hcl.Range{Filename: filepath.Join(dir, "gone.hcl"), Start: hcl.Pos{Line: 3, Column: 5, Byte: 20}, End: hcl.Pos{Line: 3, Column: 6, Byte: 21}}}
	tests := []struct {
		name      string
		e         *UnsupportedError
		wantFiles bool
		want      string
	}{{
		name: "file() in argv: the source line", e: rendered("f"), wantFiles: true,
		want: spec + `:2:23: error: systemd cannot express command[1]
  2 |   command = ["sleep", file("key.txt")]
    |                       ^^^^^^^^^^^^^^^
  ` + rendered("f").Reason + "\n",
	}, {
		name: "a secret's literal value: the place only", e: rendered("lit"),
		want: spec + `:5:23: error: systemd cannot express command[1]
  ` + rendered("lit").Reason + "\n",
	}, {
		name: "no subject: one line",
		e:    &UnsupportedError{Engine: Slurm, Feature: `the spec's directory "/a b"`, Reason: "export with --dir to a plain path"},
		want: `childproof: error: slurm cannot express the spec's directory "/a b": export with --dir to a plain path` + "\n",
	}, {
		name: "the spec file is gone: no line", e: gone,
		want: filepath.Join(dir, "gone.hcl") + ":3:5: error: nomad cannot express env[A]\n  why\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags, files := tt.e.Diagnostics()
			if len(diags) != 1 || diags[0].Subject != tt.e.Subject {
				t.Errorf("diagnostics = %v, want one at %v", diags, tt.e.Subject)
			}
			if (files[spec] != nil) != tt.wantFiles {
				t.Errorf("files = %v, want the spec's: %v", files, tt.wantFiles)
			}
			var b strings.Builder
			lintreport.WriteDiagnostics(&b, files, diags, false)
			if strings.Contains(b.String(), canary) {
				t.Fatalf("the text holds the secret value:\n%s", b.String())
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}
