package envres

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDifferentialShebang runs scripts by their path, as the kernel does,
// with a HOME whose profile and rc files export X=rc (and ENV naming an rc
// file for sh -i): the worker's X differs from the caller's exactly when
// the lint reports the shebang as login-shell or interactive-shell.
func TestDifferentialShebang(t *testing.T) {
	for _, sh := range []string{"/bin/bash", "/bin/sh", "/usr/bin/env"} {
		if _, err := os.Stat(sh); err != nil {
			t.Skipf("%s not installed", sh)
		}
	}
	home := t.TempDir()
	for _, f := range []string{".bash_profile", ".profile", ".bashrc", ".shrc"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("export X=rc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, shebang := range []string{
		"#!/bin/bash", "#!/bin/bash -l", "#!/bin/bash --login", "#!/bin/bash -i", "#!/bin/bash -li",
		"#!/bin/bash -e", "#!/bin/sh", "#!/bin/sh -l", "#!/bin/sh -i", "#!/usr/bin/env bash",
		"#!/usr/bin/env -S bash -l", "#!/usr/bin/env -S bash -i", "#!/usr/bin/env -S bash -e",
	} {
		dir := t.TempDir()
		script := shebang + "\nexec printenv X\n"
		if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("./run.sh")
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ENV=" + filepath.Join(home, ".shrc"), "X=ovr"}
		out, _ := cmd.Output() // an interactive shell without a terminal may complain on stderr
		changed := string(bytes.TrimSpace(out)) != "ovr"
		res, err := Lint(context.Background(), Config{Dir: dir, Scripts: []string{"run.sh"},
			Overrides: []Override{{Name: "X", Value: "ovr", Known: true}}})
		if err != nil {
			t.Fatal(err)
		}
		reported := false
		for _, f := range res.Findings {
			if (f.Rule == LoginShell.Name || f.Rule == InteractiveShell.Name) && f.Line == 1 {
				reported = true
			}
		}
		if changed != reported {
			t.Errorf("%s: the worker's X changed: %v (%q); lint reports the shebang: %v", shebang, changed, out, reported)
		}
	}
}
