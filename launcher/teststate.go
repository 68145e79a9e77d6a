package launcher

import (
	"flag"
	"os"
	"sync"

	"github.com/childproof/childproof/launcher/statedir"
)

// testStateDir is the default state dir of Start in a test binary: one
// directory of its own per test binary process, "childproof-test-*" made
// in statedir.ScratchParent() (a tmpfs when there is one), so that two
// test packages never share the user's state dir, its locks and
// records. Each call takes a reference that releaseTestState gives back:
// the directory is removed once no launch uses it (the last foreground
// launch stopped, or failed), and made afresh by the next call. A
// detached launch never gives its reference back: its record stays for
// as long as the binary runs. "" outside a test binary, when
// $CHILDPROOF_STATE_DIR is set (the caller chose), or when it cannot be
// made: statedir.DefaultDir then, and no reference is taken.
func testStateDir() string {
	if os.Getenv("CHILDPROOF_STATE_DIR") != "" || flag.Lookup("test.v") == nil {
		return ""
	}
	testState.mu.Lock()
	defer testState.mu.Unlock()
	if testState.dir == "" {
		dir, err := os.MkdirTemp(statedir.ScratchParent(), "childproof-test-")
		if err != nil {
			return ""
		}
		testState.dir = dir
	}
	testState.refs++
	return testState.dir
}

// releaseTestState gives back a reference testStateDir took; the last
// one removes the directory.
func releaseTestState() {
	testState.mu.Lock()
	defer testState.mu.Unlock()
	if testState.refs--; testState.refs == 0 && testState.dir != "" {
		os.RemoveAll(testState.dir)
		testState.dir = ""
	}
}

var testState struct {
	mu   sync.Mutex
	dir  string
	refs int
}
