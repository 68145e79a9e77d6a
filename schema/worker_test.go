package schema

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExeNeverMatches(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "srv")
	os.WriteFile(bin, []byte("\x7fELF not really"), 0o755)
	os.Symlink(bin, filepath.Join(dir, "srv-link"))
	script := filepath.Join(dir, "shim")
	os.WriteFile(script, []byte("#!/bin/sh\nexec srv\n"), 0o755)
	os.Symlink(script, filepath.Join(dir, "python3"))
	os.WriteFile(filepath.Join(dir, "data"), []byte("x"), 0o644)
	for _, tc := range []struct {
		exe, want string
	}{
		{bin, ""},
		{filepath.Join(dir, "srv-link"), ""},
		{filepath.Join(dir, "missing"), "does not exist"},
		{script, "is a script"},
		{filepath.Join(dir, "python3"), "is a script"},
		{filepath.Join(dir, "data"), "not an executable file"},
		{dir, "not an executable file"},
	} {
		err := ExeNeverMatches(tc.exe)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ExeNeverMatches(%s) = %v, want %q", tc.exe, err, tc.want)
		}
	}
	if err := ExeNeverMatches(filepath.Join(dir, "missing")); !errors.Is(err, ErrExeMissing) {
		t.Errorf("missing: %v, want ErrExeMissing", err)
	}
	if got := ResolveExe(filepath.Join(dir, "srv-link")); got != bin {
		t.Errorf("ResolveExe = %s, want %s", got, bin)
	}
}

func TestLoadExeSelector(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "shim")
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)
	p := filepath.Join(dir, "s.hcl")
	write := func(exe string) {
		os.WriteFile(p, []byte("launch \"a\" {\n  command = [\"true\"]\n  worker {\n    exe = \""+exe+"\"\n  }\n}\n"), 0o644)
	}
	write(script)
	if _, _, diags := Load(p, LoadOptions{}); !diags.HasErrors() || diags[0].Summary != "Worker exe can never match" {
		t.Errorf("a script exe: %v", diags)
	}
	write(filepath.Join(dir, "not-built-yet"))
	if f, _, diags := Load(p, LoadOptions{}); f == nil || len(diags) != 1 || diags[0].Summary != "Worker exe not found" {
		t.Errorf("a missing exe: %v", diags)
	}
}

func TestLoadCommPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.hcl")
	os.WriteFile(p, []byte("launch \"a\" {\n  command = [\"true\"]\n  worker {\n    comm = \"/usr/bin/py\"\n  }\n}\n"), 0o644)
	if f, _, diags := Load(p, LoadOptions{}); f == nil || len(diags) != 1 || diags[0].Summary != "Worker comm is a path" {
		t.Errorf("a comm with a path: %v", diags)
	}
}

// TestIsVolatile: the spec's volatile list and the built-in one.
func TestIsVolatile(t *testing.T) {
	l := &Launch{Volatile: []string{"JOB_NONCE", "MYAPP_RUN_*"}}
	for name, want := range map[string]bool{
		"JOB_NONCE": true, "MYAPP_RUN_ID": true, "TORCHELASTIC_ERROR_FILE": true, "TORCHELASTIC_RUN_ID": true,
		"SLURM_JOB_ID": true, "SLURM_STEP_ID": true, "OMPI_COMM_WORLD_RANK": true, "PMIX_NAMESPACE": true, "MASTER_PORT": true,
		"RANK": false, "LOCAL_RANK": false, "WORLD_SIZE": false, "SLURM_CPUS_PER_TASK": false, "MY_FLAG": false, "PATH": false,
	} {
		if got := l.IsVolatile(name); got != want {
			t.Errorf("IsVolatile(%s) = %t, want %t", name, got, want)
		}
	}
}
