package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/childproof/childproof/schema"
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
			hint := "run 'childproof --help' for the commands"
			c.SuggestionsMinimumDistance = 2
			if s := c.SuggestionsFor(args[0]); len(s) > 0 {
				hint = "did you mean " + orList(s) + "? (" + hint + ")"
			}
			return &exitError{code: exitUsage, err: fmt.Errorf("unknown command %q", args[0]), hint: hint}
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

// flagError turns a flag parsing error of c into a usage error that says
// what was wrong in the user's words: an unknown flag with the flags it
// likely meant ("did you mean --detach?"), a value that is not a number
// or a duration without strconv's text.
func flagError(c *cobra.Command, err error) error {
	hint := fmt.Sprintf("run '%s --help' for usage", c.CommandPath())
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedName() != "" {
		if s := similarFlags(c, ne.GetSpecifiedName()); len(s) > 0 {
			hint = "did you mean " + orList(s) + "? (" + hint + ")"
		}
		return &exitError{code: exitUsage, err: err, hint: hint}
	}
	var ie *pflag.InvalidValueError
	if errors.As(err, &ie) {
		f := ie.GetFlag()
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + "/--" + f.Name
		}
		want := map[string]string{
			"int": "a whole number", "int64": "a whole number", "uint": "a whole number from 0 up",
			"duration": "a duration such as 500ms, 10s or 1m30s", "bool": "true or false",
		}[f.Value.Type()]
		if want == "" {
			want = "a " + f.Value.Type()
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("%s %q: not %s", name, ie.GetValue(), want), hint: hint}
	}
	return err
}

// similarFlags are c's flags (its own and inherited) whose long name is
// close to name (at most 2 edits, or name a prefix of it), as --NAME.
func similarFlags(c *cobra.Command, name string) []string {
	var out []string
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		if schema.EditDistance(name, f.Name) <= 2 || (len(name) > 1 && strings.HasPrefix(f.Name, name)) {
			out = append(out, "--"+f.Name)
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	return out
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
