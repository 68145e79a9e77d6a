package census

import (
	"time"

	"github.com/childproof/childproof/launcher/relay"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// RelayWait bounds how long stop waits for a relay to reach its pipe's
// end once the tree is gone.
const RelayWait = 2 * time.Second

// collectRelay ends, under the launch's lock, the relay of a launch a
// census found gone (relay.Collect); it says what it did ("" for
// nothing).
func (s *State) collectRelay(name string, fp *verify.Fingerprint, p proc.FS) string {
	return relay.Collect(s.Store, name, fp, p)
}
