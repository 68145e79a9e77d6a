//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
)

// lintRelaunch lints the launch's chain with the --set names protected,
// as run does (envres.PlanRelaunchLint), and prints the plan's notes. It
// returns, for each --set name written into an env file with
// inEnvFile, that file (relaunch.Options.InEnvFile).
func (a *app) lintRelaunch(ctx context.Context, l *schema.Launch, in launcher.EnvInput, inEnvFile, noLint bool) (map[string]string, error) {
	wd := workDir()
	plan, err := envres.PlanRelaunchLint(ctx, l, envres.RelaunchLint{Set: in.Set, Secret: in.SecretSet, InEnvFile: inEnvFile, NoLint: noLint, WorkDir: wd})
	for _, n := range plan.Notes {
		prefix := "childproof: relaunch: "
		if n.Warning() {
			prefix = "childproof: warning: "
		}
		fmt.Fprintf(a.stderr, "%s%s\n", prefix, noteText(n, wd))
	}
	var ee *envres.EnvFileEditError
	if errors.As(err, &ee) {
		msg, hint := envFileEditText(ee)
		return nil, &exitError{code: ee.OutcomeKind(), err: errors.New(msg), hint: hint}
	}
	return plan.InEnvFile, a.lintRefusal(err)
}
