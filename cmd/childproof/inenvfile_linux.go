//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
)

// lintRelaunch lints the launch's chain with the --set names protected,
// as run does. With inEnvFile, the env-file-clobber findings of the --set
// names are not errors: it returns, for each such name, the env file to
// write the value into (launcher.RelaunchOptions.InEnvFile). Without it, a
// refusal because of such a finding names --in-env-file in its hint.
func (a *app) lintRelaunch(ctx context.Context, l *schema.Launch, set map[string]string, secret []string, inEnvFile, noLint bool) (map[string]string, error) {
	if noLint && !inEnvFile {
		return nil, nil
	}
	res, refusal := envres.LintBeforeLaunch(ctx, "relaunch", withSet(l, set))
	var le *envres.LintError
	if errors.As(refusal, &le) {
		return nil, a.lintRefusal(le, "")
	}
	var in map[string]string
	if inEnvFile {
		edits, fixed, err := res.EnvFileEdits(slices.Collect(maps.Keys(set)))
		in = map[string]string{}
		for _, t := range edits {
			n := t.Name
			in[n] = t.File
			where := "line " + fmt.Sprint(t.Line)
			if t.Line == 0 {
				where = "a line appended at its end (it does not assign " + n + " itself)"
			}
			fmt.Fprintf(a.stderr, "childproof: relaunch: --in-env-file %s: %s re-sources %s: writing %s into it at %s\n", n, t.SiteAt(), displayPath(t.File, false), n, where)
			if slices.Contains(secret, n) || l.SecretName(n) {
				fmt.Fprintf(a.stderr, "childproof: warning: --in-env-file %s: %s is secret: the value it replaces in %s is not kept, so --unset %s and --round N cannot restore it\n", n, n, t.FileAt(workDir()), n)
			}
		}
		var be *envres.BlockedError
		switch {
		case errors.Is(err, envres.ErrNoClobber):
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("--in-env-file: no env file of the dispatch chain clobbers %s: there is nothing to edit; nothing was stopped", strings.Join(slices.Sorted(maps.Keys(set)), ", ")),
				hint: "drop --in-env-file: the --set value reaches the worker as an override"}
		case errors.As(err, &be):
			n, t := be.Name, be.Target
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("--in-env-file %s: the load at %s clobbers %s, but %s; nothing was edited or stopped", n, t.SiteAt(), n, t.Why(workDir())),
				hint: "fix the dispatch chain (see docs/crash-fix-rounds.md, \"A dispatcher that clobbers the mitigation\")"}
		}
		// The findings the edit fixes are no longer errors.
		res = fixed
		if noLint {
			return in, nil
		}
		refusal = res.Refusal("relaunch")
	}
	if refusal == nil {
		return in, nil
	}
	hint := noLintHint
	if !inEnvFile {
		targets := res.EnvFileTargets(slices.Collect(maps.Keys(set)))
		for _, n := range slices.Sorted(maps.Keys(targets)) {
			if t := targets[n]; t.Blocked == envres.Editable {
				hint = fmt.Sprintf("%s re-sources %s, which sets %s (%s): add --in-env-file to write %s into that file instead (the dispatcher keeps its re-source; --unset %s puts the file back); or fix the script, or --no-lint",
					t.SiteAt(), displayPath(t.File, false), n, t.FileAt(workDir()), n, n)
				break
			}
		}
	}
	return in, a.lintRefusal(refusal, hint)
}

// writeEnvFileChanges says what a relaunch did to env files.
func (a *app) writeEnvFileChanges(name string, res *launcher.RelaunchResult) {
	if res == nil {
		return
	}
	opts := a.textOptions()
	for _, c := range res.EnvFiles {
		prefix := "childproof: relaunch: "
		if c.How == launcher.EnvFileKept {
			prefix = "childproof: warning: relaunch: "
		}
		if t := c.Text(name, opts); t != "" {
			fmt.Fprintf(a.stderr, "%s%s\n", prefix, t)
		}
	}
	if res.EnvFilesRestored {
		fmt.Fprintf(a.stderr, "childproof: relaunch: the env file changes were undone (the relaunch failed)\n")
	}
}
