package gitdiff

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	diff := `diff --git a/run.sh b/run.sh
index 1..2 100755
--- a/run.sh
+++ b/run.sh
@@ -3 +3 @@ set -a
-old
+new
@@ -10,2 +11,0 @@ x
@@ -20,0 +21,3 @@ y
diff --git a/gone.sh b/gone.sh
--- a/gone.sh
+++ /dev/null
@@ -1,2 +0,0 @@
diff --git a/dir/new file.sh b/dir/new file.sh
--- /dev/null
+++ b/dir/new file.sh
@@ -0,0 +1,2 @@
`
	got, err := Parse(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Span{
		"run.sh":          {{3, 3}, {11, 12}, {21, 23}},
		"dir/new file.sh": {{1, 2}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := Parse(strings.NewReader("+++ b/x\n@@ -1 +z @@\n")); err == nil {
		t.Error("bad hunk accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("+++ b/x\n@@ -1,2 +3,4 @@\n")
	f.Add("+++ /dev/null\n@@ -0,0 +0,0 @@\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, spans := range m {
			for _, sp := range spans {
				if sp.From < 0 || sp.To < sp.From-1 {
					t.Fatalf("bad span %+v", sp)
				}
			}
		}
	})
}

// TestSince runs real git: a committed file, then edits, a new untracked
// file and an ignored one.
func TestSince(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	write("run.sh", "a\nb\nc\nd\n")
	write(".gitignore", "ignored.sh\n")
	run("add", ".")
	run("commit", "-q", "-m", "base")
	write("run.sh", "a\nB\nc\nd\ne\n")
	write("sub/new.sh", "x\n")
	write("ignored.sh", "x\n")
	c, err := Since(context.Background(), filepath.Join(dir), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		line int
		want bool
	}{
		{"run.sh", 1, false}, {"run.sh", 2, true}, {"run.sh", 3, false}, {"run.sh", 5, true},
		{filepath.Join(c.Root, "run.sh"), 2, true}, {"sub/new.sh", 7, true}, {"ignored.sh", 1, false},
		{"/elsewhere/run.sh", 2, false},
	} {
		if got := c.Changed(tc.path, tc.line); got != tc.want {
			t.Errorf("Changed(%s, %d) = %v, want %v", tc.path, tc.line, got, tc.want)
		}
	}
	if _, err := Since(context.Background(), dir, "no-such-ref"); !errors.Is(err, ErrRevision) {
		t.Errorf("unknown ref: %v", err)
	}
	if _, err := Since(context.Background(), t.TempDir(), "HEAD"); !errors.Is(err, ErrNotRepository) {
		t.Errorf("not a repository: %v", err)
	}
}
