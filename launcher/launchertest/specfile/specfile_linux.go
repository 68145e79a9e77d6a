package specfile

import (
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/schema"
)

// Start loads the launch called name (empty: the only one) from the HCL
// spec at path, with vars setting its variables, and starts it as
// launchertest.Start does. A spec that does not load fails the test with
// its diagnostics.
func Start(tb testing.TB, path, name string, vars map[string]string, opts launcher.Options) *launcher.Launch {
	tb.Helper()
	f, _, diags := schema.Load(path, schema.LoadOptions{Vars: vars})
	if diags.HasErrors() {
		tb.Fatalf("specfile: %s: %s", path, diags.Error())
	}
	l, err := f.Launch(name)
	if err != nil {
		tb.Fatalf("specfile: %v", err)
	}
	if opts.SpecHash == "" {
		opts.SpecHash = f.Hash
	}
	return launchertest.Start(tb, l, opts)
}
