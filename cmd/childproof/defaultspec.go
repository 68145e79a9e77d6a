package main

import (
	"context"

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
