package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkFlagValues refuses, for every command, flag values that parse but
// mean nothing: a negative duration (--timeout -1s), a process id below
// 1 (--pid 0 would otherwise read as "no --pid"), a round below 1. Each
// is a usage error naming the flag, before the command does anything.
func checkFlagValues(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		switch f.Value.Type() {
		case "duration":
			if d, perr := time.ParseDuration(f.Value.String()); perr == nil && d < 0 {
				err = exitf(exitUsage, "--%s %s: a duration must not be negative", f.Name, f.Value.String())
			}
		case "int":
			n, perr := strconv.Atoi(f.Value.String())
			if perr != nil {
				return
			}
			switch f.Name {
			case "pid":
				if n < 1 {
					err = exitf(exitUsage, "--pid %d: a process id is a number from 1 up", n)
				}
			case "round":
				if n < 1 {
					err = exitf(exitUsage, "--round %d: rounds are numbered from 1 ('childproof history NAME' lists them)", n)
				}
			}
		}
	})
	return err
}

// requireCommand makes root without a command a usage error (exit 2,
// with the list of commands on stderr) instead of help on stdout, exit 0.
func requireCommand(root *cobra.Command) {
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return &exitError{code: exitUsage, err: fmt.Errorf("unknown command %q", args[0]), hint: "run 'childproof --help' for the commands"}
		}
		c.SetOut(c.ErrOrStderr())
		_ = c.Usage()
		return exitf(exitUsage, "no command given")
	}
}

// strictCompletion makes 'completion' without a shell, or with one it
// does not know, a usage error instead of its help, exit 0.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, s := range c.Commands() {
			shells = append(shells, s.Name())
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitf(exitUsage, "completion: name a shell: %s", strings.Join(shells, ", "))
			}
			return exitf(exitUsage, "completion %s: not a shell it knows (want one of %s)", args[0], strings.Join(shells, ", "))
		}
	}
}
