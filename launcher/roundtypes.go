package launcher

import "github.com/childproof/childproof/launcher/statedir"

// The round types are the state dir's (launcher/statedir), named here so
// that launcher's callers keep their names.
type (
	// Round is one crash-fix round of a launch (statedir.Round).
	Round = statedir.Round
	// RoundOutcome is what a round's launch came to
	// (statedir.RoundOutcome).
	RoundOutcome = statedir.RoundOutcome
	// EndHow is how a round's worker ended (statedir.EndHow).
	EndHow = statedir.EndHow
	// EndSeen is who saw a round's end (statedir.EndSeen).
	EndSeen = statedir.EndSeen
	// Override is one --set override of a round (statedir.Override).
	Override = statedir.Override
	// EnvFileEdit is the change relaunch --in-env-file made to an env
	// file (statedir.EnvFileEdit).
	EnvFileEdit = statedir.EnvFileEdit
	// RoundDelta is what one round changed (statedir.RoundDelta).
	RoundDelta = statedir.RoundDelta
	// RoundEnd is how a round's worker ended (statedir.RoundEnd).
	RoundEnd = statedir.RoundEnd
	// Command names what a round came from, in the round history
	// (statedir.Command). A Go caller may name its own.
	Command = statedir.Command
)

// The round outcomes (statedir's).
const (
	RoundLaunching   = statedir.RoundLaunching
	RoundVerified    = statedir.RoundVerified
	RoundFailed      = statedir.RoundFailed
	RoundRefused     = statedir.RoundRefused
	RoundInterrupted = statedir.RoundInterrupted
)

// The ways a worker ends, and who sees it (statedir's).
const (
	EndExited      = statedir.EndExited
	EndSignaled    = statedir.EndSignaled
	EndStopped     = statedir.EndStopped
	EndGone        = statedir.EndGone
	SeenSupervisor = statedir.SeenSupervisor
	SeenLaunch     = statedir.SeenLaunch
	SeenStop       = statedir.SeenStop
	SeenCensus     = statedir.SeenCensus
)

// The commands childproof itself records (statedir's).
const (
	CommandStart    = statedir.CommandStart
	CommandRun      = statedir.CommandRun
	CommandRelaunch = statedir.CommandRelaunch
	CommandUp       = statedir.CommandUp
	CommandRestart  = statedir.CommandRestart
	CommandRollback = statedir.CommandRollback
)
