package schema

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad decodes arbitrary bytes as a spec (Parse: nothing is written
// to disk): it must never panic, every diagnostic's range must lie
// inside the input, and the constraint engine must say what the oracle
// it replaced says (loadBoth).
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("../examples/*/*.hcl")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(contractSpec))
	f.Add([]byte(""))
	f.Add([]byte("launch \"a\" {\n  comand = [\"x\"]\n}\n"))
	f.Add([]byte("variable \"p\" {}\nlaunch \"a\" { command = [env(\"X\"), var.p] }"))
	f.Add([]byte("launch \"a\" { dispatch = [\"s.sh\"]\n port \"p\" { number = 0 }\n ready { timeout = \"x\" } }"))
	f.Add([]byte("launch \"a\" { command = [\"x\"]\n restart { policy = \"always\"\n max = 3\n backoff = \"2s\" }\n slurm { partition = \"gpu\"\n gres = \"gpu:1\"\n time = \"1-00:00\" } }"))
	for _, src := range deepSpecs() {
		f.Add([]byte(src))
	}
	lookup := lookupFrom(map[string]string{"HOME": "/root", "X": "1"})
	path := filepath.Join(f.TempDir(), "s.hcl")
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := LoadOptions{LookupEnv: lookup, Vars: map[string]string{"p": "1"}}
		file, files, diags := Parse(data, path, opts)
		if diff := loadBoth(data, path, opts, true); diff != "" {
			t.Fatal(diff)
		}
		if diags.HasErrors() && file != nil {
			t.Fatal("a file with errors")
		}
		if !diags.HasErrors() && file == nil {
			t.Fatal("no file and no error")
		}
		if files == nil {
			t.Fatal("nil file map")
		}
		for _, d := range diags {
			if d.Subject == nil {
				continue
			}
			r := *d.Subject
			if r.Filename != path {
				t.Fatalf("diagnostic %q in %q, not %q", d.Summary, r.Filename, path)
			}
			if r.Start.Byte < 0 || r.Start.Byte > r.End.Byte || r.End.Byte > len(data) {
				t.Fatalf("diagnostic %q range %d-%d outside input of %d bytes", d.Summary, r.Start.Byte, r.End.Byte, len(data))
			}
			if r.Start.Line < 1 || r.Start.Column < 1 {
				t.Fatalf("diagnostic %q at %d:%d", d.Summary, r.Start.Line, r.Start.Column)
			}
		}
		if file != nil {
			for _, l := range file.Launches {
				_ = l.Protected()
				_, _ = l.EnvFileNames()
			}
		}
	})
}
