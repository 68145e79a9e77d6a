package launcher

import (
	"context"
	"time"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
)

// What launcher/relaunch needs of a launch: the launch lock held from the
// stop of the recorded launch to the start of the next, the start under
// it with the round's plan, and the checks a start makes first.

// Lock is a launch's lock, held until Unlock; it is not safe for
// concurrent use.
type Lock struct{ l *launchLock }

// Unlock releases the lock; it is safe on a nil Lock and twice.
func (l *Lock) Unlock() {
	if l != nil {
		l.l.unlock()
	}
}

// lockOf wraps a held launch lock (nil: none).
func lockOf(l *launchLock) *Lock {
	if l == nil {
		return nil
	}
	return &Lock{l: l}
}

// Lock takes the lock of launch name as Start does, looking again for a
// moment while another holds it; then it fails (outcome.Locked, ErrLocked).
func (s *State) Lock(name string) (*Lock, error) {
	l, err := s.lock(name)
	return lockOf(l), err
}

// LockWait takes the lock of launch name, waiting up to wait for another
// holder to let go; then it fails as Lock does.
func (s *State) LockWait(ctx context.Context, name string, wait time.Duration) (*Lock, error) {
	l, err := s.lockWait(ctx, name, wait)
	return lockOf(l), err
}

// Held is what a relaunch hands StartHeld besides the launch and its
// Options.
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
	var lk *launchLock
	if h.Lock != nil {
		lk = h.Lock.l
	}
	return startHeld(ctx, l, opts, held{lock: lk, keep: h.Keep, plan: h.Plan})
}

// TakeLock returns the launch's lock, if it still holds it, and leaves the
// launch without it: the caller releases it (Unlock).
func (la *Launch) TakeLock() *Lock {
	l := la.lock
	la.lock = nil
	return lockOf(l)
}

// Detached reports whether the launch was started detached
// (Options.Detach).
func (la *Launch) Detached() bool { return la.opts.Detach }

// CheckLaunch checks l by the spec loader's rules, as Start does before
// anything is taken or started; a broken rule is a usage *Error.
func CheckLaunch(l *spec.Launch) error { return validLaunch(l, nil) }

// StateOf returns the state a launch with opts records in: opts.State, or
// opts.StateDir opened; either way its digest key must be usable.
func StateOf(opts Options) (*State, error) { return launchState(opts.State, opts.StateDir) }

// CheckWritable fails when the state dir cannot take a launch of name's
// files, as Start checks before anything is stopped or started.
func (s *State) CheckWritable(name string) error { return s.checkWritable(name) }

// ResolveEnvFor resolves l's environment with opts (its Set, LookupEnv,
// Environ and FromSpec), as Start does.
func ResolveEnvFor(l *spec.Launch, opts Options) (*Env, error) {
	return resolveEnvFrom(l, opts.Set, opts.LookupEnv, opts.Environ, !opts.FromSpec)
}

// LaunchSecrets returns the secret set of a launch of l with opts as
// known before its environment is resolved (the spec's and the --set
// values').
func LaunchSecrets(l *spec.Launch, opts Options) *redact.Set { return launchSecrets(l, nil, opts) }

// MaskErr hides the secret values of s in err's message, hint and report.
func MaskErr(err error, s *redact.Set) error { return maskErr(err, s) }

// SameLaunch reports whether r and b describe one launch: the same start
// and the same worker.
func (r *Record) SameLaunch(b *Record) bool { return sameLaunch(r, b) }
