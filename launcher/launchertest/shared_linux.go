package launchertest

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/childproof/childproof/internal/freeport"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/spec"
)

// Shared starts l once for a whole test package, from TestMain, where
// there is no testing.TB: the tests then share the verified server (they
// use its ports and read the *launcher.Launch's fields; none stops it).
// Call stop after m.Run, before os.Exit: it stops the
// tree as a test's cleanup does (SIGTERM, SIGKILL after opts.StopGrace,
// StopTimeout when zero) and removes the state dir Shared made; it is
// safe to call more than once. Each call gets a state dir of its own
// (where StateDir makes one) unless opts sets State or StateDir. opts.Output nil:
// the output goes to the log only (os.Stderr, say, streams it). A failed
// start returns the *launcher.Error (its Tail has the last lines the
// tree printed), removes what it made and leaves nothing running. A
// shared server dies with the test binary as every foreground launch
// does.
//
//	func TestMain(m *testing.M) {
//		port, err := launchertest.Port()
//		…
//		la, stop, err := launchertest.Shared(context.Background(), spec(port), launcher.Options{})
//		if err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		code := m.Run()
//		stop()
//		os.Exit(code)
//	}
func Shared(ctx context.Context, l *spec.Launch, opts launcher.Options) (la *launcher.Launch, stop func(), err error) {
	if l == nil {
		return nil, func() {}, errors.New("launchertest: Shared: no launch (a nil *spec.Launch)")
	}
	dir := ""
	if opts.State == nil && opts.StateDir == "" {
		if dir, err = os.MkdirTemp(statedir.ScratchParent(), "launchertest-"+l.Name+"-"); err != nil {
			return nil, func() {}, err
		}
		opts.StateDir = dir
	}
	if opts.StopGrace == 0 {
		opts.StopGrace = StopTimeout
	}
	la, err = launcher.Start(ctx, l, opts)
	if err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		return nil, func() {}, err
	}
	var once sync.Once
	return la, func() {
		once.Do(func() {
			la.Stop(context.Background())
			if dir != "" {
				os.RemoveAll(dir)
			}
		})
	}, nil
}

// Port is FreePort for TestMain (no testing.TB): a port nothing listens
// on, never handed out twice on this machine while this binary runs.
func Port() (int, error) { return freeport.FreePort() }
