package launcher

import "github.com/childproof/childproof/launcher/journal"

// RoundPlan is the round a relaunch (launcher/relaunch) works out for
// StartHeld (journal.Plan). It is plain data, safe for concurrent use
// while no one changes it.
type RoundPlan = journal.Plan
