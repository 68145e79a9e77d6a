package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() { register("version", newVersionCmd) }

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use: "version",
		Long: `version prints the module version childproof was built from: the tag of a
'go install github.com/childproof/childproof/cmd/childproof@VERSION' build, or for a
build from a git checkout its pseudo-version, commit and whether the tree had
uncommitted changes.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			fmt.Fprintf(a.stdout, "childproof %s\n", buildVersion())
			return nil
		},
	}
}

// buildVersion is the module version from the binary's build info, with
// the VCS commit when the version alone does not name one.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if v == "(devel)" && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev
	}
	if modified == "true" && !strings.HasSuffix(v, "+dirty") {
		v += " (modified)"
	}
	return v
}
