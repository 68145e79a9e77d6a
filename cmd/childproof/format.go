package main

import (
	"slices"

	"github.com/spf13/cobra"
)

// formatValues are the --format values of each command that takes other
// than text; a command not listed takes text and json.
var formatValues = map[string][]string{
	"lint":       {"text", "json", "sarif", "github"},
	"check":      {"text", "json", "sarif", "github"},
	"logs":       {"text"},
	"export":     {"text"},
	"version":    {"text"},
	"completion": {"text"},
	"help":       {"text"},
	"__complete": {"text", "json", "sarif", "github"},
}

// formatsOf returns the --format values c takes.
func formatsOf(c *cobra.Command) []string {
	for p := c; p != nil; p = p.Parent() {
		if v, ok := formatValues[p.Name()]; ok {
			return v
		}
		if p.Parent() != nil && p.Parent().Parent() == nil {
			break // a subcommand of the root: the default
		}
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
