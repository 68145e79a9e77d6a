package launcher

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/proc"
)

// readOnly makes dir read-only for this test: as root a read-only bind
// mount of it over itself (root writes whatever its mode says), undone in
// t.Cleanup; otherwise mode 0500. It skips the test when neither works.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o500)
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind mount of %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			unix.Unmount(dir, unix.MNT_DETACH)
		}
	})
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Skipf("read-only remount of %s: %v", dir, err)
	}
}

// TestRotateLogsStopsOnError: a rotation that cannot remove or rename
// (a read-only directory, as the EROFS of a read-only state dir) returns
// the first error instead of counting upwards for ever (issue 40).
func TestRotateLogsStopsOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.log")
	for _, name := range []string{"x.log", "x.log.1", "x.log.7", "x.log.07", "x.logx"} {
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600)
	}
	readOnly(t, dir)
	done := make(chan error, 1)
	go func() { done <- rotateLogs(path, 3) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("rotateLogs in a read-only directory: no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("rotateLogs in a read-only directory did not return")
	}
}

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
		{"log mask", f.state.files.Mask("own"), func() error {
			return f.state.ReadLog(context.Background(), "own", LogOptions{Last: 10}, func(string) {})
		}},
		{"history", f.state.files.History("own"), func() error {
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
