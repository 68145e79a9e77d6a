package proctree

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"golang.org/x/sys/unix"
)

// MarkerVar is the variable every launched process carries in its
// environment: CHILDPROOF_LAUNCH=ENC.NONCE, the launch name encoded as
// its state files are (statedir.Encode) and 16 random hex digits new for
// each launch. It is no secret and proves nothing by itself. It only
// finds a launch's processes where no cgroup holds them: not as root, or
// with CHILDPROOF_NO_CGROUP=1. A setsid or double-forked daemon that left
// the process group still carries it, and a stranger who joined the
// process group does not. Each candidate is then signalled through its
// own pidfd, as a cgroup's members are.
const MarkerVar = "CHILDPROOF_LAUNCH"

// NewMarker returns a fresh marker value for launch name.
func NewMarker(name string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return statedir.Encode(name) + "." + hex.EncodeToString(b)
}

// markerEntry is the environ entry of marker, NUL-terminated.
func markerEntry(marker string) []byte {
	return []byte(MarkerVar + "=" + marker + "\x00")
}

// carries reports whether environ block env holds the entry want (from
// markerEntry).
func carries(env, want []byte) bool {
	if bytes.HasPrefix(env, want) {
		return true
	}
	// The block may end without a NUL after a rewrite.
	if bytes.Equal(env, want[:len(want)-1]) {
		return true
	}
	i := bytes.Index(env, append([]byte{0}, want...))
	if i >= 0 {
		return true
	}
	return bytes.HasSuffix(env, append([]byte{0}, want[:len(want)-1]...))
}

// HasMarker reports whether process pid's environ carries marker.
func HasMarker(p proc.FS, pid int, marker string) bool {
	if marker == "" {
		return false
	}
	env, err := p.EnvironRaw(pid)
	return err == nil && carries(env, markerEntry(marker))
}

// MarkerPids lists the live processes (zombies left out) whose environ
// carries one of markers, by marker: one pass over /proc. Processes whose
// environ cannot be read (another uid, when not root) are not seen.
func MarkerPids(p proc.FS, markers ...string) map[string][]int {
	out := map[string][]int{}
	if len(markers) == 0 {
		return out
	}
	want := make([][]byte, len(markers))
	for i, m := range markers {
		want[i] = markerEntry(m)
	}
	pids, err := p.Pids()
	if err != nil {
		return out
	}
	self := os.Getpid()
	buf := make([]byte, 16<<10)
	for _, pid := range pids {
		if pid == self {
			continue
		}
		env, err := readEnviron(p.Path(pid, "environ"), &buf)
		if err != nil || len(env) == 0 || !bytes.Contains(env, []byte(MarkerVar+"=")) {
			continue
		}
		for i, w := range want {
			if carries(env, w) {
				if s, err := p.Stat(pid); err == nil && s.State != 'Z' {
					out[markers[i]] = append(out[markers[i]], pid)
				}
				break
			}
		}
	}
	return out
}

// readEnviron reads the environ block at path into *buf (grown when it
// is full) and returns it. The marker scan reads every process's block:
// one reused buffer and no fstat (os.ReadFile's, which reads a /proc file
// in growing chunks and allocates each time) cut that scan to about a
// third, measured over 100 processes (0.73-1.8 ms -> 0.23-0.48 ms).
func readEnviron(path string, buf *[]byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(*buf) {
			*buf = append(*buf, make([]byte, len(*buf))...)
		}
		m, err := unix.Read(fd, (*buf)[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return (*buf)[:n], nil
		}
		n += m
	}
}

// WithMarker returns env (KEY=VALUE entries) with the launch's marker as
// its only MarkerVar entry (a launch started from inside another launch
// inherits that one's with inherit = ["*"]).
func WithMarker(env []string, marker string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, MarkerVar+"=") {
			out = append(out, kv)
		}
	}
	return append(out, MarkerVar+"="+marker)
}
