package launcher

import (
	"flag"
	"os"
	"sync"
)

// testStateDir is the default state dir of Start in a test binary: one
// directory of its own per test binary process, made under os.TempDir()
// at the first Start ("childproof-test-*"; left there, like a test's
// other files under $TMPDIR when it is killed), so that two test packages
// never share the user's state dir, its locks and records. "" outside a
// test binary, when $CHILDPROOF_STATE_DIR is set (the caller chose), or
// when it cannot be made: DefaultStateDir then.
func testStateDir() string {
	if os.Getenv("CHILDPROOF_STATE_DIR") != "" || flag.Lookup("test.v") == nil {
		return ""
	}
	testState.once.Do(func() {
		testState.dir, _ = os.MkdirTemp("", "childproof-test-")
	})
	return testState.dir
}

var testState struct {
	once sync.Once
	dir  string
}
