//go:build unix

package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestDefaultStateDir(t *testing.T) {
	tmp := t.TempDir()
	uid := os.Geteuid()
	parent := filepath.Join(tmp, "childproof-"+strconv.Itoa(uid))
	home, _ := os.UserHomeDir()
	for _, tc := range []struct {
		name       string
		env        map[string]string
		want, made string
	}{
		{"outside SLURM", map[string]string{"TMPDIR": tmp}, filepath.Join(home, ".local/state/childproof"), ""},
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/x"}, "/x/childproof", ""},
		{"a batch script, no step", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "XDG_STATE_HOME": "/x"}, "/x/childproof", ""},
		{"a step", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0", "XDG_STATE_HOME": "/x"}, filepath.Join(parent, "slurm-12.0"), parent},
		{"an array task has its own job id", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "13", "SLURM_ARRAY_JOB_ID": "12", "SLURM_STEP_ID": "0"}, filepath.Join(parent, "slurm-13.0"), parent},
		{"a step of several tasks: one dir per task", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "2", "SLURM_PROCID": "1"}, filepath.Join(parent, "slurm-12.0.1"), parent},
		{"a step of one task keeps JOB.STEP", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "1", "SLURM_PROCID": "0"}, filepath.Join(parent, "slurm-12.0"), parent},
		{"a relative TMPDIR is /tmp", map[string]string{"TMPDIR": "tmp", "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0"}, filepath.Join("/tmp", "childproof-"+strconv.Itoa(uid), "slurm-12.0"), filepath.Join("/tmp", "childproof-"+strconv.Itoa(uid))},
		{"CHILDPROOF_STATE_DIR wins", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0", "CHILDPROOF_STATE_DIR": "/y"}, "/y", ""},
		{"an id unfit for a path", map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "../12", "SLURM_STEP_ID": "0", "XDG_STATE_HOME": "/x"}, "/x/childproof", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, made, err := defaultStateDir(func(n string) (string, bool) { v, ok := tc.env[n]; return v, ok }, uid)
			if err != nil || got != tc.want || made != tc.made {
				t.Fatalf("defaultStateDir = %q, %q, %v; want %q, %q", got, made, err, tc.want, tc.made)
			}
		})
	}
	step := func(n string) (string, bool) {
		v, ok := map[string]string{"TMPDIR": tmp, "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0"}[n]
		return v, ok
	}
	// DefaultDir creates nothing (a completion calls it); Open's
	// form makes the per-user parent, mode 0700.
	if _, err := os.Stat(parent); !os.IsNotExist(err) {
		t.Fatalf("defaultStateDir made %s: %v", parent, err)
	}
	if d, err := openDefaultStateDir(step, uid); err != nil || d != filepath.Join(parent, "slurm-12.0") {
		t.Fatalf("openDefaultStateDir = %q, %v", d, err)
	}
	if fi, err := os.Stat(parent); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("parent: %v, %v", fi, err)
	}
	// A per-user parent that others may write is refused.
	if err := os.Chmod(parent, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := openDefaultStateDir(step, uid)
	var se *StepDirError
	if !errors.As(err, &se) || se.Parent != parent || !strings.Contains(se.Err.Error(), "that only it may write") {
		t.Fatalf("err = %v, want a *StepDirError of %s", err, parent)
	}
}
