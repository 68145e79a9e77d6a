package statedir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
