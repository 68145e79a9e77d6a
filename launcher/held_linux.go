package launcher

import (
	"context"

	"github.com/childproof/childproof/launcher/launchenv"
	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
)

// What launcher/relaunch needs of a launch: the launch lock held from the
// stop of the recorded launch to the start of the next, the start under
// it with the round's plan, and the checks a start makes first.

// Lock is a launch's lock, held until Unlock (statedir.LaunchLock); it
// is not safe for concurrent use. State.Lock and State.LockWait take it.
type Lock = statedir.LaunchLock

// Held is what a relaunch hands StartHeld besides the launch and its
// Options; it is plain data, safe for concurrent use while no one changes it.
type Held struct {
	// Lock is the launch's lock, already held (nil: StartHeld takes it).
	// It is released (or handed to the Launch) whatever happens.
	Lock *Lock
	// Keep leaves the lock with the Launch even when detached (a relaunch
	// checks the delta under it, then lets go: TakeLock).
	Keep bool
	// Plan is the round's plan: carried overrides and the delta (nil: the
	// round's overrides are Options.Set).
	Plan *RoundPlan
}

// StartHeld is Start with what a relaunch holds (h).
func StartHeld(ctx context.Context, l *spec.Launch, opts Options, h Held) (*Launch, error) {
	return startHeld(ctx, l, opts, h)
}

// TakeLock returns the launch's lock, if it still holds it, and leaves the
// launch without it: the caller releases it (Unlock).
func (la *Launch) TakeLock() *Lock {
	l := la.lock
	la.lock = nil
	return l
}

// Detached reports whether the launch was started detached
// (Options.Detach).
func (la *Launch) Detached() bool { return la.opts.Detach }

// CheckLaunch checks l by the spec loader's rules, as Start does before
// anything is taken or started; a broken rule is a usage *Error.
func CheckLaunch(l *spec.Launch) error { return validLaunch(l, nil, "") }

// StateOf returns the state a launch with opts records in: opts.State, or
// opts.StateDir opened; either way its digest key must be usable.
func StateOf(opts Options) (*State, error) { return launchState(opts.State, opts.StateDir) }

// ResolveEnvFor resolves l's environment with opts (its Set, LookupEnv,
// Environ and FromSpec), as Start does.
func ResolveEnvFor(l *spec.Launch, opts Options) (*Env, error) {
	return launchenv.ResolveFrom(l, opts.Set, opts.LookupEnv, opts.Environ, !opts.FromSpec)
}

// LaunchSecrets returns the secret set of a launch of l with opts as
// known before its environment is resolved (the spec's and the --set
// values').
func LaunchSecrets(l *spec.Launch, opts Options) *redact.Set { return launchSecrets(l, nil, opts) }

// MaskErr hides the secret values of s in err's message, hint and report.
func MaskErr(err error, s *redact.Set) error { return mask.Err(err, s) }
