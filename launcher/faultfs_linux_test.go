package launcher

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/childproof/childproof/proc"
)

// TestForeignLaunchFilesRefused: as root, a launch's log, log mask,
// history directory, or the state dir's layout file owned by another user
// (nobody) is refused like a foreign key, record or lock — exit 2 naming
// the path — by the next launch (before anything starts), by the log and
// history readers, and (layout) by OpenState (issue 40 item 9: they were
// accepted silently).
func TestForeignLaunchFilesRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a state file to another user")
	}
	const other = 65534 // nobody
	f := newFixture(t)
	l := f.spec("own")
	l.Secret = []string{"MOCK_LLM_KEY"} // a secret: the launch writes a log mask
	la, err := f.start(t, l, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := la.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		// read is a reader that must refuse it too (nil: none).
		read func() error
	}{
		{"log", f.state.LogPath("own"), func() error {
			return f.state.ReadLog(context.Background(), "own", LogOptions{Last: 10}, func(string) {})
		}},
		{"log mask", f.state.Files.Mask("own"), func() error {
			return f.state.ReadLog(context.Background(), "own", LogOptions{Last: 10}, func(string) {})
		}},
		{"history", f.state.Files.History("own"), func() error {
			_, err := f.state.History(proc.Default, "own")
			return err
		}},
		{"layout", filepath.Join(f.state.Dir, "layout"), func() error {
			_, err := OpenState(f.state.Dir)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Lstat(tc.path); err != nil {
				t.Fatalf("the first launch left no %s: %v", tc.path, err)
			}
			if err := os.Lchown(tc.path, other, other); err != nil {
				t.Fatal(err)
			}
			defer os.Lchown(tc.path, 0, 0)
			_, err := f.start(t, l, true)
			wantStrict(t, err, tc.path, "owned by uid 65534")
			noListener(t, f.port)
			wantStrict(t, tc.read(), tc.path, "owned by uid 65534")
		})
	}
	// Every file its own again: the launch starts.
	if _, err := f.start(t, l, true); err != nil {
		t.Errorf("after the files are root's again: %v", err)
	}
}
