//go:build unix

package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRefusedWithoutBlocking: a FIFO with no writer, a device and (on
// Linux) /proc/kmsg are refused at once, without a read (issue 40: they
// hung check and lint for ever); a regular file is read, one too large
// refused.
func TestRefusedWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("A=1\n"), 0o600)
	cases := []struct {
		path, want string
	}{
		{fifo, "is not a regular file (a FIFO)"},
		{"/dev/null", "is not a regular file (a character device)"},
		{dir, "is not a regular file (a directory)"},
		{ok, "is larger than 3 bytes"},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases, struct{ path, want string }{"/proc/self/status", "is a file of /proc (procfs)"})
		if _, err := os.Stat("/proc/kmsg"); err == nil && os.Geteuid() == 0 {
			cases = append(cases, struct{ path, want string }{"/proc/kmsg", "is a file of /proc (procfs)"})
		}
	}
	for _, c := range cases {
		done := make(chan error, 1)
		go func() {
			_, err := Read(c.path, 3)
			done <- err
		}()
		select {
		case err := <-done:
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.path+" ") {
				t.Errorf("Read(%s): %v, want an *Error saying %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Read(%s) blocked", c.path)
		}
	}
	if b, err := Read(ok, 4); err != nil || string(b) != "A=1\n" {
		t.Errorf("Read(ok) = %q, %v", b, err)
	}
	if b, err := Head(ok, 2); err != nil || string(b) != "A=" {
		t.Errorf("Head(ok) = %q, %v", b, err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read(missing): %v, want ErrNotExist", err)
	}
}
