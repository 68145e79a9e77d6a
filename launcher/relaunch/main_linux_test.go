package relaunch

import (
	"os"
	"testing"

	"github.com/childproof/childproof/launcher"
)

// TestMain lets the test binary be the log relay of its detached launches.
func TestMain(m *testing.M) {
	launcher.RelayMain()
	os.Exit(m.Run())
}
