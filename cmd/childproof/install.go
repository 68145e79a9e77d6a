package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

func init() { register("install", newInstallCmd) }

// newInstallCmd copies the running childproof binary into a directory:
// what a Kubernetes init container does with an image that has no cp (a
// scratch or distroless --childproof-image).
func newInstallCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use: "install DIR",
		Long: `install copies this childproof binary to DIR/childproof (mode 0755, through a
temporary file and a rename), creating DIR if needed. The init container that
export --to k8s --childproof-image writes runs it to put childproof on the pod's
shared volume: an image built FROM scratch holds nothing but childproof, no cp.`,
		Example: `  childproof install /childproof`,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dst, err := installSelf(args[0])
			if err != nil {
				return exitf(exitUsage, "install: %v", err)
			}
			fmt.Fprintf(a.stdout, "installed %s\n", dst)
			return nil
		},
	}
}

// installSelf copies os.Executable to dir/childproof atomically.
func installSelf(dir string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	src, err := os.Open(self)
	if err != nil {
		return "", err
	}
	defer src.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, "childproof")
	tmp, err := os.CreateTemp(dir, ".childproof.*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return dst, os.Rename(tmp.Name(), dst)
}
