package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
)

// openState opens the state dir of --state-dir (or the default).
func (a *app) openState() (*launcher.State, error) {
	dir := a.stateDir
	if dir == "" {
		d, err := slurmStepStateDir(os.LookupEnv, os.Geteuid())
		if err != nil {
			return nil, exitf(exitUsage, "%v", err)
		}
		dir = d
	}
	st, err := launcher.OpenState(dir)
	if err != nil {
		var le *launcher.Error
		if errors.As(err, &le) {
			return nil, &exitError{code: le.OutcomeKind(), err: errors.New(le.Error()), hint: le.Hint}
		}
		return nil, exitf(exitUsage, "%v", err)
	}
	return st, nil
}

// slurmStepStateDir returns the default state dir inside a SLURM job step
// when neither --state-dir nor CHILDPROOF_STATE_DIR says one, else "" (the
// usual default): $TMPDIR (else /tmp)/childproof-UID/slurm-JOB.STEP. On a
// cluster the home directory is shared by every node, so the usual default
// would make two jobs of one launch (a job array, two sbatch of one script)
// share a lock. The per-user parent is created mode 0700 and must be a
// directory of uid not writable by others (TMPDIR is shared).
func slurmStepStateDir(lookup func(string) (string, bool), uid int) (string, error) {
	if v, ok := lookup("CHILDPROOF_STATE_DIR"); ok && v != "" {
		return "", nil
	}
	if !schema.InSlurmStep(lookup) {
		return "", nil
	}
	job, _ := lookup("SLURM_JOB_ID")
	step, _ := lookup("SLURM_STEP_ID")
	if !plainID(job) || !plainID(step) {
		return "", nil
	}
	tmp, _ := lookup("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	parent := filepath.Join(tmp, "childproof-"+strconv.Itoa(uid))
	if err := os.Mkdir(parent, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("state dir of the SLURM step: %w", err)
	}
	if err := ownedDir(parent, uid); err != nil {
		return "", fmt.Errorf("state dir of the SLURM step: %w (set --state-dir or CHILDPROOF_STATE_DIR)", err)
	}
	return filepath.Join(parent, "slurm-"+job+"."+step), nil
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
