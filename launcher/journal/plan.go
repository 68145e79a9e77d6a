package journal

import "github.com/childproof/childproof/launcher/statedir"

// Plan is the round a relaunch (launcher/relaunch) works out for
// launcher.StartHeld: the overrides in effect and what this round
// changed. It is plain data, safe for concurrent use while no one
// changes it.
type Plan struct {
	// Command is the round's command ("": statedir.CommandStart).
	Command statedir.Command
	// Baseline is the round the plan starts from; ReplayOf the round it
	// replays (0: none).
	Baseline, ReplayOf int
	// Overrides are the overrides in effect (Round 0: set by this round).
	Overrides map[string]statedir.Override
	// Base are the baseline round's overrides.
	Base map[string]statedir.Override
	// Set are this round's --set names; Unset the overrides it drops.
	Set, Unset []string
}
