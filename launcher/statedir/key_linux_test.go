package statedir

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
		for _, fresh := range []bool{false, true} {
			if got, err := loadKey(path, dirfd, fresh); err != nil || string(got) != string(k) {
				t.Errorf("held %v: loadKey (fresh %v) = %x, %v", held, fresh, got, err)
			}
		}
	}
}

// TestOpenFreshKeyThere: a state dir whose directories Open makes all
// (fresh) but that holds a key already keeps that key, and one whose key
// is a symbolic link is refused, as when the key is looked for first.
func TestOpenFreshKeyThere(t *testing.T) {
	dir := t.TempDir()
	want := []byte(hex.EncodeToString([]byte("0123456789abcdef0123456789abcdef")))
	if err := os.WriteFile(filepath.Join(dir, "key"), want, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.made) != len(Subdirs) {
		t.Fatalf("made %q, want every directory", s.made)
	}
	if string(s.key) != "0123456789abcdef0123456789abcdef" {
		t.Errorf("key %q: the key there was not kept", s.key)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "key")); string(b) != string(want) {
		t.Errorf("key file %q, want %q", b, want)
	}
	planted := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(target, want, 0o600)
	if err := os.Symlink(target, filepath.Join(planted, "key")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(planted); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Open of a state dir whose key is a symlink: %v, want it refused", err)
	}
}
