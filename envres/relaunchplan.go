package envres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

// RelaunchLint is what the lint before a relaunch (PlanRelaunchLint) is
// given: the round's overrides and flags. The zero value lints a
// relaunch without overrides, refusing on an error finding. It is plain
// data, safe for concurrent use while no one changes it.
type RelaunchLint struct {
	// Set are the round's overrides (--set, and --set-secret with the
	// caller's value): the lint protects them with their values. No value
	// is kept in the plan or its errors.
	Set map[string]string
	// Secret are the names of Set given as secrets (--set-secret).
	Secret []string
	// InEnvFile is --in-env-file: an env-file-clobber finding of a Set
	// name is not an error; the name's value is written into the env file
	// that clobbers it (RelaunchPlan.InEnvFile).
	InEnvFile bool
	// NoLint is --no-lint: an error finding does not refuse the relaunch.
	// Without InEnvFile nothing is linted then.
	NoLint bool
	// WorkDir is the directory the paths of notes and errors are given
	// relative to when they lie below it (RebasePath); "": as recorded.
	WorkDir string
}

// RelaunchPlan is what the lint before a relaunch decided: the env files
// to edit and what to tell the user first. Its zero value edits nothing
// and says nothing. It is plain data, safe for concurrent use while no one
// changes it.
type RelaunchPlan struct {
	// InEnvFile maps each Set name whose value is written into an env file
	// to that file's absolute path (relaunch.Options.InEnvFile);
	// nil without RelaunchLint.InEnvFile, and when PlanRelaunchLint
	// returns an error.
	InEnvFile map[string]string
	// Notes say, in order, what the relaunch will do to env files, for the
	// user to read before it starts: for each name by name, the edit and,
	// for a secret name, a warning. A plan that fails on a blocked name
	// still has the notes of the names before it.
	Notes []RelaunchNote
}

// RelaunchNoteKind is what a RelaunchNote says.
type RelaunchNoteKind int

const (
	// NoteEnvFileEdit (the zero value): the name's value is written into
	// the env file that re-sources it.
	NoteEnvFileEdit RelaunchNoteKind = iota
	// NoteSecretNotKept (a warning): the name is secret, so the value its
	// edit replaces is not kept and no later round can restore it.
	NoteSecretNotKept
)

// RelaunchNote is one thing a relaunch that writes overrides into env
// files (RelaunchLint.InEnvFile) tells the user before it starts, about
// one name's env file edit. It is plain data, safe for concurrent use while
// no one changes it.
type RelaunchNote struct {
	// Kind is what the note says.
	Kind RelaunchNoteKind
	// Target is the name and the env file written into.
	Target NamedTarget
}

// Warning says the note is a warning (NoteSecretNotKept).
func (n RelaunchNote) Warning() bool { return n.Kind == NoteSecretNotKept }

// EnvFileEditError is a relaunch with RelaunchLint.InEnvFile that has no
// env file to edit, or one it cannot edit: outcome.Usage; nothing was edited or
// stopped. It is plain data, safe for concurrent use while no one changes
// it.
type EnvFileEditError struct {
	// Names are the Set names, sorted.
	Names []string
	// Err is ErrNoClobber (no env file of the chain clobbers any of Names)
	// or the *BlockedError of the first name whose env file cannot take
	// its value.
	Err error
	// WorkDir is RelaunchLint.WorkDir: the message's files are relative to
	// it when they lie below it; "": as recorded.
	WorkDir string
}

func (e *EnvFileEditError) Error() string {
	var be *BlockedError
	if errors.As(e.Err, &be) {
		n, t := be.Name, be.Target
		return fmt.Sprintf("env file edit of %s: the load at %s clobbers %s, but %s; nothing was edited or stopped", n, t.SiteAt(), n, t.Why(e.WorkDir))
	}
	return fmt.Sprintf("env file edit: no env file of the dispatch chain clobbers %s: there is nothing to edit; nothing was stopped", strings.Join(e.Names, ", "))
}

func (e *EnvFileEditError) Unwrap() error { return e.Err }

// OutcomeKind makes an EnvFileEditError an outcome.Classified.
func (e *EnvFileEditError) OutcomeKind() outcome.Kind { return outcome.Usage }

// PlanRelaunchLint is the lint before a relaunch of l with in's overrides
// protected, as LintBeforeLaunch does for run: a *RefusedError naming
// relaunch when the chain has an error finding (unless in.NoLint), a
// *LintError when it cannot be linted. With in.InEnvFile, the
// env-file-clobber findings of the Set names are not errors: the plan
// says which env file each such name's value is written into
// (Result.EnvFileEdits), with a note for each; no clobbered name, or one
// whose env file cannot take the value, is an *EnvFileEditError. Without
// it, a refusal whose findings include a Set name's clobbering env file
// that could take the value names that target (RefusedError.Editable),
// for its hint to suggest --in-env-file. The plan is never nil.
func PlanRelaunchLint(ctx context.Context, l *schema.Launch, in RelaunchLint) (*RelaunchPlan, error) {
	plan := &RelaunchPlan{}
	if in.NoLint && !in.InEnvFile {
		return plan, nil
	}
	res, refusal := LintBeforeLaunch(ctx, "relaunch", l.WithEnv(in.Set))
	var le *LintError
	if errors.As(refusal, &le) {
		return plan, le
	}
	names := slices.Sorted(maps.Keys(in.Set))
	if in.InEnvFile {
		edits, fixed, err := res.EnvFileEdits(names)
		for _, t := range edits {
			plan.Notes = append(plan.Notes, RelaunchNote{Kind: NoteEnvFileEdit, Target: t})
			if slices.Contains(in.Secret, t.Name) || l.SecretName(t.Name) {
				plan.Notes = append(plan.Notes, RelaunchNote{Kind: NoteSecretNotKept, Target: t})
			}
		}
		if err != nil {
			return plan, &EnvFileEditError{Names: names, Err: err, WorkDir: in.WorkDir}
		}
		plan.InEnvFile = map[string]string{}
		for _, t := range edits {
			plan.InEnvFile[t.Name] = t.File
		}
		// The findings the edit fixes are no longer errors.
		res = fixed
		if in.NoLint {
			return plan, nil
		}
		refusal = res.Refusal("relaunch")
	}
	var re *RefusedError
	if !errors.As(refusal, &re) {
		return plan, nil
	}
	plan.InEnvFile = nil
	if !in.InEnvFile {
		targets := res.EnvFileTargets(names)
		for _, n := range slices.Sorted(maps.Keys(targets)) {
			if t := targets[n]; t.Blocked == Editable {
				re.Editable, re.WorkDir = &NamedTarget{Name: n, EnvFileTarget: t}, in.WorkDir
				break
			}
		}
	}
	return plan, re
}
