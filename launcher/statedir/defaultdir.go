package statedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/childproof/childproof/spec"
)

// DefaultDir returns the state dir used when none is given:
// $CHILDPROOF_STATE_DIR; else, inside a SLURM job step,
// ${TMPDIR:-/tmp}/childproof-UID/slurm-JOB.STEP (see slurmStepStateDir);
// else $XDG_STATE_HOME/childproof; else ~/.local/state/childproof. It
// creates nothing (Open does).
func DefaultDir() (string, error) {
	d, _, err := defaultStateDir(os.LookupEnv, os.Geteuid())
	return d, err
}

// openDefaultStateDir is DefaultDir for Open: a SLURM step's
// per-user parent is created, mode 0700, and must be a directory of uid
// that no one else may write (TMPDIR is shared).
func openDefaultStateDir(lookup func(string) (string, bool), uid int) (string, error) {
	dir, parent, err := defaultStateDir(lookup, uid)
	if err != nil || parent == "" {
		return dir, err
	}
	if err := os.Mkdir(parent, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("state dir of the SLURM step: %w", err)
	}
	if err := ownedDir(parent, uid); err != nil {
		return "", &StepDirError{Parent: parent, Err: err}
	}
	return dir, nil
}

// StepDirError reports, inside a SLURM job step, a per-user parent of the
// default state dir that is not a directory of the effective uid that
// only it may write: the default cannot be used, a state dir named (or
// CHILDPROOF_STATE_DIR) can. It is safe for concurrent use while no one
// changes its fields.
type StepDirError struct {
	// Parent is the per-user directory ($TMPDIR/childproof-UID).
	Parent string
	// Err is the cause: the directory's owner or mode, or its Lstat's
	// error.
	Err error
}

func (e *StepDirError) Error() string {
	return "state dir of the SLURM step: " + e.Err.Error() + " (name a state dir, or set CHILDPROOF_STATE_DIR)"
}

// Unwrap is e's cause, Err.
func (e *StepDirError) Unwrap() error { return e.Err }

// defaultStateDir is DefaultDir over lookup and uid; parent is the
// per-user directory a SLURM step's state dir lies in ("" outside one).
func defaultStateDir(lookup func(string) (string, bool), uid int) (dir, parent string, err error) {
	if d, ok := lookup("CHILDPROOF_STATE_DIR"); ok && d != "" {
		return d, "", nil
	}
	if d, parent := slurmStepStateDir(lookup, uid); d != "" {
		return d, parent, nil
	}
	if d, ok := lookup("XDG_STATE_HOME"); ok && d != "" {
		return filepath.Join(d, "childproof"), "", nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", "", fmt.Errorf("state dir: %w", err)
	}
	return filepath.Join(home, ".local", "state", "childproof"), "", nil
}

// slurmStepStateDir returns the state dir of a SLURM job step and its
// per-user parent, $TMPDIR (else /tmp)/childproof-UID/slurm-JOB.STEP (with
// .TASK, the task's SLURM_PROCID, in a step of several tasks), or ""
// outside a step (spec.InSlurmStep) or when an id is unfit for a path.
// On a cluster the home directory is shared by every node, so the usual
// default would make two jobs of one launch (a job array, two sbatch of one
// script) share a lock.
func slurmStepStateDir(lookup func(string) (string, bool), uid int) (dir, parent string) {
	if !spec.InSlurmStep(lookup) {
		return "", ""
	}
	job, _ := lookup("SLURM_JOB_ID")
	step, _ := lookup("SLURM_STEP_ID")
	if !plainID(job) || !plainID(step) {
		return "", ""
	}
	tmp, _ := lookup("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	parent = filepath.Join(tmp, "childproof-"+strconv.Itoa(uid))
	name := "slurm-" + job + "." + step
	// Two tasks of one step on one node (srun -n2) each run a launch of
	// their own: the task's rank is part of the name when the step has
	// several tasks.
	if n, _ := lookup("SLURM_STEP_NUM_TASKS"); n != "" && n != "1" {
		if task, _ := lookup("SLURM_PROCID"); plainID(task) {
			name += "." + task
		}
	}
	return filepath.Join(parent, name), parent
}

// plainID reports whether s is a SLURM id fit for a path: letters,
// digits and '_' (job ids are numbers; an array task has its own).
func plainID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}
