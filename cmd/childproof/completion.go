package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/schema"
)

// Shell completion: SPEC arguments complete to .hcl files (and, after a
// ':', to the file's launch names); NAME|SPEC arguments to the launches
// recorded in the state dir and .hcl files (FILE: too for a file with
// several launches); --format to the values the command takes.

// completeSpec completes a SPEC[:NAME] argument; use it as the
// ValidArgsFunction of commands whose first argument is a SPEC.
func completeSpec(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if names, ok := schema.CompleteSpecName(toComplete); ok {
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{"hcl"}, cobra.ShellCompDirectiveFilterFileExt
}

// completeLaunchName completes NAME|SPEC[:NAME]: the launch names recorded
// in the state dir, then .hcl files.
func (a *app) completeLaunchName(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if names, ok := schema.CompleteSpecName(toComplete); ok {
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, n := range a.recordedNames() {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n+"\trecorded launch")
		}
	}
	dir := cobra.ShellCompDirectiveNoFileComp
	for _, f := range schema.CompleteSpecFile(toComplete) {
		out = append(out, f)
		if strings.HasSuffix(f, "/") || strings.HasSuffix(f, ":") {
			dir |= cobra.ShellCompDirectiveNoSpace
		}
	}
	return out, dir
}

// recordedNames lists the launch names of the state dir's records without
// opening the state (a completion must not create or change anything).
func (a *app) recordedNames() []string {
	dir := a.stateDir()
	if dir == "" {
		d, err := statedir.DefaultDir()
		if err != nil {
			return nil
		}
		dir = d
	}
	names, _ := statedir.Layout{Dir: dir}.Names()
	return names
}
