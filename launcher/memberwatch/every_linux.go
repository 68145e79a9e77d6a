package memberwatch

import (
	"time"

	"github.com/childproof/childproof/launcher/treeevents"
)

// watchEveryHeard is how often supervision looks anyway when the tree's events
// are heard (the proc connector): they wake it for every change, and the
// look is the fallback for events the kernel dropped.
const watchEveryHeard = 2 * time.Second

// Every is how often foreground supervision looks at the tree without
// an event: every 2 s once its events te are heard (and none was lost),
// else every 250 ms.
func Every(te *treeevents.Events) time.Duration {
	if te.Unbroken() {
		return watchEveryHeard
	}
	return watchEvery
}
