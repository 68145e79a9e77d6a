//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestSlurmStepStateDir(t *testing.T) {
	tmp := t.TempDir()
	uid := os.Geteuid()
	parent := filepath.Join(tmp, "childproof-"+strconv.Itoa(uid))
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"outside SLURM", map[string]string{"TMPDIR": tmp}, ""},
		{"a batch script, no step", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12"}, ""},
		{"a step", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0"}, filepath.Join(parent, "slurm-12.0")},
		{"an array task has its own job id", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "13", "SLURM_ARRAY_JOB_ID": "12", "SLURM_STEP_ID": "0"}, filepath.Join(parent, "slurm-13.0")},
		{"CHILDPROOF_STATE_DIR wins", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0", "CHILDPROOF_STATE_DIR": "/x"}, ""},
		{"an id unfit for a path", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "../12", "SLURM_STEP_ID": "0"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := slurmStepStateDir(func(n string) (string, bool) { v, ok := tc.env[n]; return v, ok }, uid)
			if err != nil || got != tc.want {
				t.Fatalf("slurmStepStateDir = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	// A per-user parent that others may write is refused.
	if err := os.Chmod(parent, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := slurmStepStateDir(func(n string) (string, bool) {
		v, ok := map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0"}[n]
		return v, ok
	}, uid)
	if err == nil || !strings.Contains(err.Error(), "that only it may write") {
		t.Fatalf("err = %v", err)
	}
}
