package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/childproof/childproof/schema"
)

// defaultSpecFile is the spec a command uses when given none, from the
// current directory (as docker compose uses compose.yaml).
const defaultSpecFile = "childproof.hcl"

// specOrDefault returns the SPEC[:NAME] argument of args: args[0], with
// ":NAME" short for childproof.hcl:NAME, or childproof.hcl when args is
// empty. Without a childproof.hcl here, an empty args is a usage error.
func specOrDefault(args []string) (string, error) {
	if len(args) > 0 {
		if strings.HasPrefix(args[0], ":") && len(args[0]) > 1 {
			return defaultSpecFile + args[0], nil
		}
		return args[0], nil
	}
	if _, err := os.Stat(defaultSpecFile); errors.Is(err, fs.ErrNotExist) {
		return "", &exitError{code: exitUsage, err: errors.New("no SPEC given, and there is no " + defaultSpecFile + " in the current directory"),
			hint: "name a spec file, for example 'childproof check path/to/childproof.hcl'"}
	}
	return defaultSpecFile, nil
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
