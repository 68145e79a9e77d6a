package main

import (
	"context"
	"os"
	"strings"

	"github.com/childproof/childproof/schema"
)

// specOrDefault returns the SPEC[:NAME] argument of args: args[0], with
// ":NAME" short for childproof.hcl:NAME (schema.ExpandSpecArg), or
// childproof.hcl when args is empty (schema.DefaultSpec: a usage error
// without one here).
func specOrDefault(args []string) (string, error) {
	if len(args) > 0 {
		return schema.ExpandSpecArg(args[0]), nil
	}
	p, err := schema.DefaultSpec()
	if err != nil {
		return "", &exitError{code: exitUsage, err: err, hint: "name a spec file, for example 'childproof check path/to/childproof.hcl'"}
	}
	return p, nil
}

// launchNameArg returns the launch a NAME|SPEC[:NAME] argument names (the
// default spec's only launch without one): a recorded name as it is, or
// the name of the spec's selected launch.
func (a *app) launchNameArg(ctx context.Context, args, vars []string) (string, error) {
	name, err := specOrDefault(args)
	if err != nil || !schema.IsSpecArg(name) {
		return name, err
	}
	_, l, err := a.loadLaunch(ctx, name, vars)
	if err != nil {
		return "", err
	}
	return l.Name, nil
}

// isLaunchName reports whether arg, the first argument of a command that
// takes SPEC[:NAME] or NAMEs of the default spec (export, up, down), is a
// bare launch name: not ":NAME", not a spec file (schema.IsSpecArg), not
// a directory. Then it is short for childproof.hcl:NAME, as ":NAME" is.
func isLaunchName(arg string) bool {
	if arg == "" || strings.HasPrefix(arg, ":") || schema.IsSpecArg(arg) {
		return false
	}
	if _, err := os.Stat(schema.ParseSpecArg(arg).Path); err == nil {
		return false
	}
	return schema.IsLaunchName(arg)
}

// specOrLaunchName is specOrDefault for a command that names one launch
// of a spec (export): a bare NAME (isLaunchName) is childproof.hcl:NAME.
func specOrLaunchName(args []string) (string, error) {
	if len(args) > 0 && isLaunchName(args[0]) {
		spec, err := specOrDefault(nil)
		if err != nil {
			return "", err
		}
		return spec + ":" + args[0], nil
	}
	return specOrDefault(args)
}
