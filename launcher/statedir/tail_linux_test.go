package statedir

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTail: the last n lines of at most the last 8 KiB of a log, the
// first (cut) line of a longer log's window left out; nothing for a
// missing file or a symlink.
func TestTail(t *testing.T) {
	dir := t.TempDir()
	// tailOf is Tail as an *os.File read it (seek to the window, read to
	// the end).
	tailOf := func(path string, n int) []string {
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		fi, _ := f.Stat()
		off := max(fi.Size()-8192, 0)
		f.Seek(off, io.SeekStart)
		b, _ := io.ReadAll(io.LimitReader(f, 8192))
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		if off > 0 && len(lines) > 1 {
			lines = lines[1:]
		}
		if len(lines) == 1 && lines[0] == "" {
			return nil
		}
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		return lines
	}
	var long strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	for name, body := range map[string]string{
		"empty": "", "one": "one", "two": "a\nb\n", "blank": "\n\n\n", "long": long.String(),
		"exact": strings.Repeat("x", 8191) + "\n", "over": "y\n" + strings.Repeat("x", 8191) + "\n",
		"longline": strings.Repeat("z", 20000),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 3, 10} {
			if d := cmp.Diff(tailOf(p, n), Tail(p, n)); d != "" {
				t.Errorf("Tail(%s, %d) (-want +got):\n%s", name, n, d)
			}
		}
	}
	if got := Tail(filepath.Join(dir, "missing"), 3); got != nil {
		t.Errorf("Tail of a missing file = %q", got)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(filepath.Join(dir, "two"), link)
	if got := Tail(link, 3); got != nil {
		t.Errorf("Tail of a symlink = %q", got)
	}
}
