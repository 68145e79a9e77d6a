package launcher

import (
	"time"

	"github.com/childproof/childproof/launcher/relay"
	"github.com/childproof/childproof/launcher/statedir"
)

// RelayMain makes this process the log relay of a detached launch, and
// exits, when it was started as one; otherwise it returns at once, and
// this program's binary is the relay of its detached launches (see
// Options.Relay). A program calls it first in its main (a test binary:
// first in TestMain), before anything it does that a relay must not;
// the childproof command's main does. A program that never calls it is
// never re-run as a relay.
func RelayMain() { relay.Main() }

// tail returns the last n lines of the launch's log once what the tree
// wrote so far is in it (up to 300 ms). When the launched root has exited
// the output is usually complete: the reader's end of the pipe (every
// writer gone) is waited for first, since an empty pipe alone does not
// say that the reader's last read is in the log yet; a process that kept
// the pipe (a daemon of the tree) leaves it to drain.
func (la *Launch) tail(n int) []string {
	if r := la.tree.Root; r != nil && r.Exited() && la.pipe != nil {
		select {
		case <-la.pipe.Done():
		case <-time.After(300 * time.Millisecond):
			la.pipe.Drain(300 * time.Millisecond)
		}
	} else {
		la.pipe.Drain(300 * time.Millisecond)
	}
	return statedir.Tail(la.LogPath(), n)
}
