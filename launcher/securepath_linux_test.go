package launcher

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestStatePathWalked: as root, a state dir whose path another user
// controls is refused before anything is created through it (the sudo -E
// case: HOME is theirs, ~/.local their symlink).
func TestStatePathWalked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the path walk applies to root; needs root to chown")
	}
	const other = 65534 // nobody
	for _, tc := range []struct {
		name string
		// setup builds the path under base and returns the state dir and
		// the component the refusal must name ("" when it is accepted).
		setup func(t *testing.T, base string) (dir, bad, why string)
	}{
		{"another user's home", func(t *testing.T, base string) (string, string, string) {
			home := mkdir(t, base, "home", 0o755, other)
			return filepath.Join(home, ".local", "state", "childproof"), home, "owned by uid 65534"
		}},
		{"their symlink to a root-owned dir", func(t *testing.T, base string) (string, string, string) {
			target := mkdir(t, base, "rootdir", 0o755, 0)
			link := filepath.Join(base, "link")
			symlink(t, target, link, other)
			return filepath.Join(link, "state"), link, "symbolic link owned by uid 65534"
		}},
		{"root's symlink to their dir", func(t *testing.T, base string) (string, string, string) {
			target := mkdir(t, base, "theirs", 0o755, other)
			link := filepath.Join(base, "link")
			symlink(t, target, link, 0)
			return filepath.Join(link, "state"), target, "owned by uid 65534"
		}},
		{"relative symlink up and into their dir", func(t *testing.T, base string) (string, string, string) {
			theirs := mkdir(t, base, "theirs", 0o755, other)
			mkdir(t, base, "a", 0o755, 0)
			symlink(t, "../theirs", filepath.Join(base, "a", "up"), 0)
			return filepath.Join(base, "a", "up", "state"), theirs, "owned by uid 65534"
		}},
		{"world-writable parent", func(t *testing.T, base string) (string, string, string) {
			p := mkdir(t, base, "open", 0o777, 0)
			return filepath.Join(p, "state"), p, "writable by others"
		}},
		{"group-writable parent", func(t *testing.T, base string) (string, string, string) {
			p := mkdir(t, base, "grp", 0o775, 0)
			if err := os.Chown(p, 0, other); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(p, "state"), p, "writable by group 65534"
		}},
		{"root's own path, through root's symlink", func(t *testing.T, base string) (string, string, string) {
			target := mkdir(t, base, "rootdir", 0o755, 0)
			symlink(t, target, filepath.Join(base, "link"), 0)
			return filepath.Join(base, "link", "state", "childproof"), "", ""
		}},
		{"sticky world-writable parent owned by root (/tmp)", func(t *testing.T, base string) (string, string, string) {
			p := mkdir(t, base, "tmp", 0o777|os.ModeSticky, 0)
			return filepath.Join(p, "state"), "", ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, bad, why := tc.setup(t, base)
			st, err := OpenState(dir)
			if bad == "" {
				if err != nil {
					t.Fatalf("OpenState(%s): %v", dir, err)
				}
				if st.Dir != dir {
					t.Errorf("dir %s", st.Dir)
				}
				return
			}
			wantStrict(t, err, bad, why)
			if _, err := os.Lstat(dir); !os.IsNotExist(err) {
				t.Errorf("%s was created (or is there) after the refusal: %v", dir, err)
			}
		})
	}
}

func mkdir(t *testing.T, base, name string, mode os.FileMode, uid int) string {
	t.Helper()
	p := filepath.Join(base, name)
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, uid, uid); err != nil {
		t.Fatal(err)
	}
	return p
}

func symlink(t *testing.T, target, link string, uid int) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, uid, uid); err != nil {
		t.Fatal(err)
	}
}

// TestStatePathRace: as root, another user (nobody, in a process of its
// own: the test binary's "symlink-toggle" helper) keeps planting and removing a symlink at a component of the state
// dir's path, in a sticky world-writable directory (/tmp), while OpenState
// runs again and again. The component is checked and created in one step
// (openat O_NOFOLLOW, mkdirat relative to the checked directory's
// descriptor), so nothing is ever created in the symlink's target — the
// check-then-MkdirAll it replaced did, in 3 of 300 runs (issue 40 item 7).
// Each OpenState either refuses the link (naming it; or, when the entry
// changed under eight opens in a row, saying it keeps changing) or creates
// the component as root's own directory.
func TestStatePathRace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the path walk applies to root; needs root to run the other user's process")
	}
	const other = 65534 // nobody
	// Under /tmp, not t.TempDir: nobody must be able to reach it.
	base, err := os.MkdirTemp("", "statepathrace")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	// A copy of the test binary nobody can run (the build dir is root's, 0700).
	self := filepath.Join(base, "helper")
	if b, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(self, b, 0o755) != nil {
		t.Skipf("cannot copy the test binary for the other user: %v", err)
	}
	tmp := mkdir(t, base, "tmp", 0o777|os.ModeSticky, 0)
	target := mkdir(t, base, "target", 0o777, 0)
	x := filepath.Join(tmp, "x")
	dir := filepath.Join(x, "st")

	ctx, cancel := context.WithCancel(context.Background())
	toggle := exec.CommandContext(ctx, self, "fault", "symlink-toggle", target, x)
	toggle.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: other, Gid: other}}
	if err := toggle.Start(); err != nil {
		cancel()
		t.Skipf("cannot run a process as uid %d: %v", other, err)
	}
	t.Cleanup(func() { cancel(); toggle.Wait() })

	var opened, refused, links int
	for i := 0; i < 300; i++ {
		st, err := OpenState(dir)
		switch {
		case err == nil && st.Dir == dir:
			opened++
		case err != nil && strings.Contains(err.Error(), x) &&
			(strings.Contains(err.Error(), "symbolic link owned by uid 65534") || strings.Contains(err.Error(), "keeps changing")):
			refused++
		case err != nil:
			t.Fatalf("OpenState(%s): %v", dir, err)
		}
		if ents, _ := os.ReadDir(target); len(ents) > 0 {
			t.Fatalf("run %d: OpenState created %s in the symlink's target %s", i, ents[0].Name(), target)
		}
		// Back to no x: the next run meets the other user's loop again
		// (root's own directory there is removed only if it is one).
		if fi, err := os.Lstat(x); err == nil && fi.IsDir() {
			os.RemoveAll(x)
		} else if err == nil {
			links++
		}
	}
	t.Logf("300 runs: %d opened (x created as root's), %d refused the other user's symlink; x was a link after %d", opened, refused, links)
}
