package launcher

import "github.com/childproof/childproof/launcher/failure"

// Fix is the remedy an Error calls for (failure.Fix), named so that a
// caller can word it in its own terms.
type Fix = failure.Fix

// The remedies; package failure says which Error fields each reads.
const (
	FixNone             = failure.FixNone
	FixStop             = failure.FixStop
	FixOtherSpec        = failure.FixOtherSpec
	FixLockHeld         = failure.FixLockHeld
	FixStateDirTrust    = failure.FixStateDirTrust
	FixStateDirMode     = failure.FixStateDirMode
	FixStateDirWritable = failure.FixStateDirWritable
	FixRecordUnmarked   = failure.FixRecordUnmarked
	FixRecordUnreadable = failure.FixRecordUnreadable
	FixNotReady         = failure.FixNotReady
	FixReadyPath        = failure.FixReadyPath
	FixSelector         = failure.FixSelector
	FixReport           = failure.FixReport
	FixMissing          = failure.FixMissing
	FixArgvChange       = failure.FixArgvChange
	FixStartFirst       = failure.FixStartFirst
	FixRecordOld        = failure.FixRecordOld
	FixDeclareDelta     = failure.FixDeclareDelta
	FixDeltaFound       = failure.FixDeltaFound
	FixEnvFileHeld      = failure.FixEnvFileHeld
	FixReplayRound      = failure.FixReplayRound
	FixRounds           = failure.FixRounds
	FixUnsetWhat        = failure.FixUnsetWhat
	FixSecretsAgain     = failure.FixSecretsAgain
	FixSpecArg          = failure.FixSpecArg
	FixStartAgain       = failure.FixStartAgain
	FixNoSuchUser       = failure.FixNoSuchUser
	FixNoSuchGroup      = failure.FixNoSuchGroup
)

// Missing is, for required variables no source gave, which source would
// have given each (failure.Missing).
type Missing = failure.Missing
