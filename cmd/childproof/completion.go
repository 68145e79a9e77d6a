package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/schema"
	"github.com/spf13/cobra"
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
	if names, ok := specNames(toComplete); ok {
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
	if names, ok := specNames(toComplete); ok {
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, n := range a.recordedNames() {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n+"\trecorded launch")
		}
	}
	dir := cobra.ShellCompDirectiveNoFileComp
	for _, f := range hclFiles(toComplete) {
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
	dir := a.stateDir
	if dir == "" {
		d, err := launcher.DefaultStateDir()
		if err != nil {
			return nil
		}
		dir = d
	}
	names, _ := statedir.Layout{Dir: dir}.Names()
	return names
}

// hclFiles lists the .hcl files and directories that complete prefix; a
// file that holds several launches also offers FILE: to go on with a name.
func hclFiles(prefix string) []string {
	dir, base := filepath.Split(prefix)
	ents, err := os.ReadDir(cmpOr(dir, "."))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		p := dir + n
		switch {
		case e.IsDir():
			out = append(out, p+"/")
		case strings.HasSuffix(n, ".hcl"):
			out = append(out, p)
			if names := launchLabels(p); len(names) > 1 {
				out = append(out, p+":")
			}
		}
	}
	return out
}

// specNames completes FILE:NAME once toComplete has a ':' after an
// existing file.
func specNames(toComplete string) ([]string, bool) {
	i := strings.LastIndexByte(toComplete, ':')
	if i <= 0 {
		return nil, false
	}
	path, prefix := toComplete[:i], toComplete[i+1:]
	if fi, err := os.Stat(path); err != nil || fi.IsDir() {
		return nil, false
	}
	var out []string
	for _, n := range launchLabels(path) {
		if strings.HasPrefix(n, prefix) {
			out = append(out, path+":"+n)
		}
	}
	return out, true
}

// launchLabels returns the labels of a spec's launch blocks
// (schema.LaunchLabels: from its syntax alone, so a spec that does not
// validate here still completes).
func launchLabels(path string) []string {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return schema.LaunchLabels(src, path)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
