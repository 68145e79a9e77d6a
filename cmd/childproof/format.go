package main

import (
	"slices"

	"github.com/childproof/childproof/lintreport"
	"github.com/spf13/cobra"
)

// textOnly is the --format of a command that prints text only.
var textOnly = []string{"text"}

// formatsOf returns the --format values c takes: its command's in
// commandTable; text only for help and completion (a completion
// request, __complete, takes every value so that any command line
// completes); else text and json.
func formatsOf(c *cobra.Command) []string {
	ci, ok := commandOf(c)
	for p := c; !ok && p != nil; p = p.Parent() {
		switch p.Name() {
		case "__complete":
			return lintreport.Formats
		case "completion", "help":
			return textOnly
		}
	}
	if ci.formats != nil {
		return ci.formats
	}
	return []string{"text", "json"}
}

// checkFormatFlag rejects a --format value c does not take: a command that
// only prints text says so instead of ignoring the flag.
func (a *app) checkFormatFlag(c *cobra.Command) error {
	allowed := formatsOf(c)
	if slices.Contains(allowed, a.format) {
		return nil
	}
	if len(allowed) == 1 {
		return exitf(exitUsage, "%s does not take --format %s: its output is text only", c.CommandPath(), a.format)
	}
	return a.checkFormat(allowed...)
}

// completeFormat completes --format with the values the command takes.
func completeFormat(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return formatsOf(c), cobra.ShellCompDirectiveNoFileComp
}
