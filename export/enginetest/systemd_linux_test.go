package enginetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nspawnSystemd is a systemd booted under systemd-nspawn for this test:
// the machine's / bind-mounted (not recursively) onto a directory, an
// overlay on top (--volatile=overlay: nothing is written to the machine),
// its own network namespace (--private-network: ports never clash with
// the machine's), booted to basic.target (journald, no services).
type nspawnSystemd struct {
	root string
	d    *daemon
	init int // the container's pid 1, as this machine sees it
}

// startSystemd boots the container with binds (host paths, mounted at the
// same path inside) and tears it down at the end of the test: SIGTERM to
// systemd-nspawn (the container powers off), SIGKILL after 30 s, then the
// bind mount is detached.
func startSystemd(t *testing.T, binds ...string) *nspawnSystemd {
	t.Helper()
	needRoot(t)
	needPrograms(t, map[string]string{"systemd-nspawn": "systemd-container", "nsenter": "util-linux"})
	if _, err := os.Stat("/lib/systemd/systemd"); err != nil {
		t.Skip("no /lib/systemd/systemd to boot (apt-get install systemd)")
	}
	if err := subreaper(); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	dir, err := os.MkdirTemp("", "childproof-nspawn-")
	if err != nil {
		t.Fatal(err)
	}
	s := &nspawnSystemd{root: filepath.Join(dir, "root")}
	if err := os.Mkdir(s.root, 0o755); err != nil {
		t.Fatal(err)
	}
	// systemd-nspawn refuses -D /: a non-recursive bind of / elsewhere.
	if err := unix.Mount("/", s.root, "", unix.MS_BIND, ""); err != nil {
		os.RemoveAll(dir)
		t.Skipf("cannot bind-mount / (%v): no systemd-nspawn here", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(s.root, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", s.root, err)
		}
		os.RemoveAll(dir)
	})
	argv := []string{"systemd-nspawn", "--quiet", "--keep-unit", "--register=no", "--private-network", "--volatile=overlay", "-D", s.root}
	for _, b := range binds {
		argv = append(argv, "--bind="+b)
	}
	argv = append(argv, "-b", "systemd.unit=basic.target")
	s.d = startDaemon(t, "systemd-nspawn", nil, nil, argv...)
	s.d.grace = 30 * time.Second
	waitFor(t, 60*time.Second, "the container's systemd", func() (bool, string) {
		if s.d.exited() {
			t.Skipf("systemd-nspawn could not boot systemd here:\n%s", s.d.output())
		}
		for _, c := range descendantsOf(s.d.cmd.Process.Pid) {
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", c)); strings.TrimSpace(string(comm)) == "systemd" {
				s.init = c
				return true, ""
			}
		}
		return false, "no systemd below systemd-nspawn yet"
	})
	// Booted: the manager answers on its bus and says running (basic.target
	// reached) or degraded (a unit of the machine's failed: not ours).
	waitFor(t, 90*time.Second, "the container's systemd running", func() (bool, string) {
		if s.d.exited() {
			t.Fatalf("systemd-nspawn exited:\n%s", s.d.output())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, _ := s.cmd(ctx, "systemctl", "is-system-running", "--wait").CombinedOutput()
		state := strings.TrimSpace(string(out))
		return state == "running" || state == "degraded", state
	})
	return s
}

// descendantsOf lists pid's children (per thread).
func descendantsOf(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(s); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// cmd runs argv inside the container (every namespace of its pid 1).
func (s *nspawnSystemd) cmd(ctx context.Context, argv ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "nsenter", append([]string{"-t", strconv.Itoa(s.init), "-a"}, argv...)...)
}

// run runs argv inside the container and returns its output; err is the
// exit status.
func (s *nspawnSystemd) run(t *testing.T, argv ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := s.cmd(ctx, argv...).CombinedOutput()
	return string(out), err
}

// must runs argv inside the container and fails the test unless it exits 0.
func (s *nspawnSystemd) must(t *testing.T, argv ...string) string {
	t.Helper()
	out, err := s.run(t, argv...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return out
}

// writeFile writes a file into the container's root (its overlay).
func (s *nspawnSystemd) writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(fmt.Sprintf("/proc/%d/root", s.init), path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

// install writes the unit and reloads systemd.
func (s *nspawnSystemd) install(t *testing.T, name, unit string) {
	t.Helper()
	s.writeFile(t, "/etc/systemd/system/"+name+".service", unit, 0o644)
	s.must(t, "systemctl", "daemon-reload")
}

// show returns the unit's properties.
func (s *nspawnSystemd) show(t *testing.T, name string, props ...string) map[string]string {
	t.Helper()
	out := s.must(t, "systemctl", "show", "-p", strings.Join(props, ","), name)
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// journal returns the unit's journal, messages only.
func (s *nspawnSystemd) journal(t *testing.T, name string) string {
	t.Helper()
	out, _ := s.run(t, "journalctl", "-u", name, "--no-pager", "-o", "cat")
	return out
}

// waitJournal waits until the unit's journal holds every one of want
// (journald takes the unit's output asynchronously).
func (s *nspawnSystemd) waitJournal(t *testing.T, name string, want ...string) {
	t.Helper()
	waitFor(t, 20*time.Second, fmt.Sprintf("%s's journal to say %q", name, want), func() (bool, string) {
		j := s.journal(t, name)
		for _, w := range want {
			if !strings.Contains(j, w) {
				return false, j
			}
		}
		return true, ""
	})
}
