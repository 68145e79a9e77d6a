package statedir

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCreateKeyUnnamed: a new key is linked into place whole (64 hex
// digits, mode 0600) by its directory's descriptor and by its path,
// leaving nothing else in the directory; a key that is there already is
// an error wrapping fs.ErrExist, and the key stays as it was.
func TestCreateKeyUnnamed(t *testing.T) {
	for _, held := range []bool{true, false} {
		dir := t.TempDir()
		dirfd := -1
		if held {
			fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			dirfd = fd
		}
		path := filepath.Join(dir, "key")
		k, err := createKey(path, dirfd)
		if err != nil {
			t.Fatalf("held %v: %v", held, err)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != hex.EncodeToString(k) || len(b) != keyHexLen {
			t.Errorf("held %v: key file %q, %v; want %x", held, b, err, k)
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode() != 0o600 {
			t.Errorf("held %v: key mode %v, %v; want 0600", held, fi.Mode(), err)
		}
		if _, err := createKey(path, dirfd); !errors.Is(err, fs.ErrExist) {
			t.Errorf("held %v: a second createKey: %v, want fs.ErrExist", held, err)
		}
		if again, _ := os.ReadFile(path); string(again) != string(b) {
			t.Errorf("held %v: the key changed to %q", held, again)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("held %v: %d entries left in the directory, want the key alone", held, len(ents))
		}
		if got, err := loadKey(path, dirfd); err != nil || string(got) != string(k) {
			t.Errorf("held %v: loadKey = %x, %v", held, got, err)
		}
	}
}
