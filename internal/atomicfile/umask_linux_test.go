package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestParseUmask(t *testing.T) {
	for status, want := range map[string]int{
		"Name:\tx\nUmask:\t0022\nState:\tR (running)\n": 0o022,
		"Umask:\t0077\n":                  0o077,
		"Umask:\t0\n":                     0,
		"Name:\tx\nState:\tR (running)\n": -1,
		"Umask:\tzz\n":                    -1,
		"Umask:\t01777\n":                 -1,
		"Name:\tx\nUmask:\t0002":          0o002,
	} {
		if got := parseUmask([]byte(status)); got != want {
			t.Errorf("parseUmask(%q) = %#o, want %#o", status, got, want)
		}
	}
}

// TestWriteModeExact: a file Write makes has mode perm exactly, whether
// it was created so (an owner's mode the umask keeps) or set by fchmod.
func TestWriteModeExact(t *testing.T) {
	u := syscall.Umask(0o022)
	syscall.Umask(u)
	if got := umask(); got != u {
		t.Errorf("umask() = %#o, want the process's %#o", got, u)
	}
	dir := t.TempDir()
	for _, perm := range []fs.FileMode{0o600, 0o400, 0o700, 0o644, 0o640, 0o666} {
		p := filepath.Join(dir, perm.String())
		if err := Write(p, []byte("x"), perm); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("Write with %v: mode %v, %v", perm, fi.Mode().Perm(), err)
		}
	}
	if !CreatedExact(0o600) && u&0o700 == 0 {
		t.Error("CreatedExact(0600) false under a umask that keeps the owner's bits")
	}
	if CreatedExact(0o644) {
		t.Error("CreatedExact(0644): a mode with group or other bits is set by fchmod")
	}
}
