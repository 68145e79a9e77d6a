package statedir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCheckWritableFreshDir: Open notes the directories it created, which
// CheckWritable does not probe again (records/ excepted, for its room); a
// state dir opened again has none, and a directory that cannot be written
// is still refused there.
func TestCheckWritableFreshDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Subdirs, s.made); diff != "" {
		t.Errorf("a fresh state dir's made directories (-want +got):\n%s", diff)
	}
	if err := s.CheckWritable("web"); err != nil {
		t.Fatal(err)
	}
	again, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.made) != 0 {
		t.Errorf("opened again, made = %q; want none", again.made)
	}
	if os.Geteuid() == 0 {
		t.Skip("root writes a directory of mode 0500 all the same")
	}
	logs := filepath.Join(dir, LogsDir)
	if err := os.Chmod(logs, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(logs, 0o700)
	if err := again.CheckWritable("web"); err == nil {
		t.Error("a logs dir of mode 0500 passed CheckWritable")
	}
}

// TestCheckWritableMadeOnce: only the first check of a fresh Store skips
// the directories its Open made; a Store kept for later launches probes
// them again (here logs/, gone since).
func TestCheckWritableMadeOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckWritable("web"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, LogsDir)); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckWritable("web"); err == nil {
		t.Error("the same Store's second check passed with its logs dir gone")
	}
}

// TestCheckWritableMadeLongAgo: a fresh Store whose first check comes
// later than madeFresh after its Open probes every directory (here logs/,
// gone since).
func TestCheckWritableMadeLongAgo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.opened = s.opened.Add(-madeFresh - time.Second)
	if err := os.Remove(filepath.Join(dir, LogsDir)); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckWritable("web"); err == nil {
		t.Error("a Store opened long ago passed its first check with its logs dir gone")
	}
}

// TestCheckWritableLaunchFiles: the launch's files in a directory of the
// state dir are checked by every check but a fresh Store's first, which
// does not look in the directories its Open just made.
func TestCheckWritableLaunchFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckWritable("web"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.Files.Log("web"), s.Files.Log("web") + ".1", s.Files.Mask("web"), s.Files.History("web")} {
		if err := os.Symlink("/etc/passwd", p); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckWritable("web"); err == nil {
			t.Errorf("the second check passed with %s a symlink", p)
		}
		again, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := again.CheckWritable("web"); err == nil {
			t.Errorf("a Store opened again passed with %s a symlink", p)
		}
		os.Remove(p)
	}
}
