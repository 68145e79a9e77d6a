package launcher

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/proc"
)

// cgroup2Root returns the cgroup v2 directory of this process, or "".
func cgroup2Root() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	mnt := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ... mountpoint ... - fstype source opts
		line := sc.Text()
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		fields := strings.Fields(pre)
		if len(fields) >= 5 {
			mnt = fields[4]
			break
		}
	}
	if mnt == "" {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "0::"); ok {
			return filepath.Join(mnt, rest)
		}
	}
	return ""
}

// newCgroup creates a child cgroup for a launch and opens it; it returns
// "" when the kernel or our privileges do not allow one.
func newCgroup(name string) (string, *os.File) {
	if os.Geteuid() != 0 || os.Getenv("CHILDPROOF_NO_CGROUP") != "" {
		return "", nil
	}
	base := cgroup2Root()
	if base == "" {
		return "", nil
	}
	if _, err := os.Stat(filepath.Join(base, "cgroup.procs")); err != nil {
		return "", nil
	}
	// Empty cgroups of this name left by a childproof that was killed
	// (nobody removed them) go now: we hold the name's lock, and rmdir
	// fails on a cgroup that still has processes.
	prefix := "childproof-" + safeName(name) + "-"
	if ents, err := os.ReadDir(base); err == nil {
		for _, e := range ents {
			if rest, ok := strings.CutPrefix(e.Name(), prefix); ok && len(rest) == 8 && e.IsDir() {
				if _, err := hex.DecodeString(rest); err == nil {
					os.Remove(filepath.Join(base, e.Name()))
				}
			}
		}
	}
	rnd := make([]byte, 4)
	rand.Read(rnd)
	dir := filepath.Join(base, prefix+hex.EncodeToString(rnd))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil
	}
	f, err := os.Open(dir)
	if err != nil {
		os.Remove(dir)
		return "", nil
	}
	return dir, f
}

// cgroupPids lists the processes of cgroup dir.
func cgroupPids(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// cgroupKill SIGKILLs every process of cgroup dir (Linux 5.14+).
func cgroupKill(dir string) error {
	if dir == "" {
		return errors.New("no cgroup")
	}
	return os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
}

// removeCgroup removes an emptied cgroup, retrying while exiting tasks
// still pin it.
func removeCgroup(dir string) {
	if dir == "" {
		return
	}
	for range 50 {
		if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// inCgroup reports whether pid's cgroup v2 path is the one of dir.
func inCgroup(p proc.FS, pid int, dir string) bool {
	b, err := os.ReadFile(p.Path(pid, "cgroup"))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "0::"); ok && rest != "/" && rest != "" {
			return strings.HasSuffix(dir, rest)
		}
	}
	return false
}
