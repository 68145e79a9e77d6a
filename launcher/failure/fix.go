package failure

// Fix is the remedy an Error calls for, named so that a caller can word
// it in its own terms: the childproof command names its flags and
// commands, a Go caller reads Error.Hint. Its zero value, FixNone, adds
// nothing to Hint.
type Fix uint8

// The remedies; each says which Error fields it reads.
const (
	// FixNone: Hint says all there is.
	FixNone Fix = iota
	// FixStop: stop the running launch Name, or let the spec replace it
	// (OnStale "replace"). With Port set, the previous launch's Pid holds
	// the port, and Other is the census of its holders.
	FixStop
	// FixOtherSpec: a launch Name from another spec file runs; rename
	// this one, use a state dir per project, or stop the other. With Port
	// set, as for FixStop.
	FixOtherSpec
	// FixLockHeld: another start of Name holds the lock; wait or stop it.
	FixLockHeld
	// FixStateDirTrust: the state dir's path is not one only root
	// controls; use another.
	FixStateDirTrust
	// FixStateDirMode: a state dir entry fails the mode check; Hint's
	// first clause says the fix, or use another state dir.
	FixStateDirMode
	// FixStateDirWritable: the state dir cannot be written; make it
	// writable or use another.
	FixStateDirWritable
	// FixRecordUnmarked: the record of Name could not be marked stopped
	// in the state dir Path.
	FixRecordUnmarked
	// FixRecordUnreadable: the record of Name cannot be read; list the
	// records, or launch Name anew.
	FixRecordUnreadable
	// FixNotReady: not ready within Spec's readiness timeout; a longer
	// one, and the output so far (Path, the log). Other, when set, lists
	// the commands the launched tree runs (a selector that matches none).
	FixNotReady
	// FixReadyPath: the worker answered Spec's readiness GET with a 4xx
	// status (Err holds the *probe.StatusError): the path, not the time.
	FixReadyPath
	// FixSelector: Spec's worker selector matches nothing; Other is the
	// comm (or, with Spec.Worker.Exe set, the exe) of the port's owner.
	FixSelector
	// FixReport: a verification failed; its Report (and Spec) say where
	// to look.
	FixReport
	// FixMissing: required variables no source gave (Missing).
	FixMissing
	// FixArgvChange: a relaunch would run another command line than the
	// recorded launch Name's.
	FixArgvChange
	// FixStartFirst: nothing of Name is recorded to relaunch.
	FixStartFirst
	// FixRecordOld: the record of Name holds no digests of its worker's
	// environment (an older childproof wrote it).
	FixRecordOld
	// FixDeclareDelta: a relaunch changes more than its overrides name.
	FixDeclareDelta
	// FixDeltaFound: the relaunched worker changed more than its
	// overrides name.
	FixDeltaFound
	// FixEnvFileHeld: the env file Path already holds the edit of the
	// override Other.
	FixEnvFileHeld
	// FixReplayRound: the baseline round of Name is unreadable; replay a
	// readable one.
	FixReplayRound
	// FixRounds: no such round of Name; list the rounds.
	FixRounds
	// FixUnsetWhat: only an override carried from an earlier round can
	// be unset.
	FixUnsetWhat
	// FixSecretsAgain: the secret overrides Names must be given again.
	FixSecretsAgain
	// FixSpecArg: the record of Other names no spec file; name it.
	FixSpecArg
	// FixStartAgain: Name is stopped; start it again.
	FixStartAgain
	// FixNoSuchUser: Spec.User names no user of this machine (Err is
	// the lookup's error); create it, or name one that exists.
	FixNoSuchUser
	// FixNoSuchGroup: Spec.Group names no group of this machine (Err is
	// the lookup's error); create it, or name one that exists.
	FixNoSuchGroup
)

// Missing is, for required variables no source gave, which source would
// have given each, each list in the spec's order. It is plain data, safe
// for concurrent use while no one changes it.
type Missing struct {
	// Names are all the missing names, as the spec's require lists them.
	Names []string
	// NotPassed are set in the caller but not passed by Inherit.
	NotPassed []string
	// Unset are passed by Inherit but not set in the caller.
	Unset []string
	// Unnamed are named by no source and not set in the caller.
	Unnamed []string
	// Inherit is what the launch's inherit passes (its effective list).
	Inherit []string
	// DefaultInherit: the launch left Inherit unset, so Inherit is the
	// default list.
	DefaultInherit bool
}
