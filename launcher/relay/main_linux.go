package relay

import (
	"os"
	"os/exec"
	"sync/atomic"

	"github.com/childproof/childproof/internal/logrelay"
	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// relaySelf is set once this program called Main (and was not started
// as a relay): it can be the relay of its own detached launches.
var relaySelf atomic.Bool

// Main makes this process the log relay of a detached launch, and exits,
// when it was started as one; otherwise it returns at once, and this
// program's binary is the relay of its detached launches (Program). It
// is launcher.RelayMain, whose doc says where a program calls it.
func Main() {
	if logrelay.Started() {
		os.Exit(logrelay.Run())
	}
	relaySelf.Store(true)
}

// Program is the program a detached launch's relay runs as
// (launcher.Options.Relay's rule): prog when set, else this program's
// binary if it called Main (launcher.RelayMain), else childproof on
// $PATH. None is a *failure.Error of Outcome outcome.Usage.
func Program(prog string) (string, error) {
	if prog != "" {
		return prog, nil
	}
	if relaySelf.Load() {
		return "/proc/self/exe", nil
	}
	if p, err := exec.LookPath("childproof"); err == nil {
		return p, nil
	}
	return "", &failure.Error{Outcome: outcome.Usage,
		Msg:  "a detached launch needs a log relay program, and none was named: Options.Relay is empty, this program did not call launcher.RelayMain, and childproof is not on $PATH",
		Hint: "call launcher.RelayMain() first in main (a test binary: in TestMain), set Options.Relay to a childproof binary, or put childproof on $PATH"}
}
