package launcher

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
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

// newMarker returns a fresh marker value for launch name.
func newMarker(name string) string {
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

// hasMarker reports whether process pid's environ carries marker.
func hasMarker(p proc.FS, pid int, marker string) bool {
	if marker == "" {
		return false
	}
	env, err := p.EnvironRaw(pid)
	return err == nil && carries(env, markerEntry(marker))
}

// markerPids lists the live processes (zombies left out) whose environ
// carries one of markers, by marker: one pass over /proc. Processes whose
// environ cannot be read (another uid, when not root) are not seen.
func markerPids(p proc.FS, markers ...string) map[string][]int {
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

// withMarker returns env (KEY=VALUE entries) with the launch's marker as
// its only MarkerVar entry (a launch started from inside another launch
// inherits that one's with inherit = ["*"]).
func withMarker(env []string, marker string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, MarkerVar+"=") {
			out = append(out, kv)
		}
	}
	return append(out, MarkerVar+"="+marker)
}

// liveMembers lists the live processes of a recorded launch's tree: the
// members of its cgroup (when it is one childproof made for it), else
// those carrying its marker, plus the recorded worker and root while they
// live. A rank that outlived its agent counts: the launch is alive while
// this is not empty.
func liveMembers(p proc.FS, rec *Record) []int {
	var out []int
	add := func(pid int) {
		if !slices.Contains(out, pid) {
			out = append(out, pid)
		}
	}
	if rec.Worker.Check(p) == verify.Alive {
		add(rec.Worker.Pid)
	}
	if rec.Root.Pid != 0 && rec.Root.Check(p) == verify.Alive {
		add(rec.Root.Pid)
	}
	if cg := trustedCgroup(rec.Cgroup, rec.Name); cg != "" {
		pids, _ := cgroupPids(cg)
		for _, pid := range pids {
			if s, err := p.Stat(pid); err == nil && s.State != 'Z' {
				add(pid)
			}
		}
	} else if rec.Marker != "" && !cgroupRemoved(rec.Cgroup, rec.Name) {
		for _, pid := range markerPids(p, rec.Marker)[rec.Marker] {
			add(pid)
		}
	}
	return out
}

// membersNote says what is left of a launch whose worker is gone.
func membersNote(pids []int) string {
	return fmt.Sprintf("worker gone, %d %s left (pid %s)", len(pids), map[bool]string{true: "member", false: "members"}[len(pids) == 1], proctree.JoinPids(pids))
}

// guardPrevious keeps run from starting a second, untracked copy of a
// launch: when the recorded launch of l's name (from this spec file or
// another) still has live members — its worker, or what outlived it in
// its cgroup or carrying its marker, a ptrace-stopped or never-verified
// tree of a killed childproof too — it is the previous instance: stopped
// first with on_stale = "replace", else the run is refused (exit 6),
// naming its spec file and pid. The caller holds the lock.
func guardPrevious(ctx context.Context, p proc.FS, st *State, l *spec.Launch, notify func(string)) error {
	rec, err := st.Load(l.Name)
	if err != nil {
		return nil
	}
	var members []int
	if rec.Stopped == nil {
		members = liveMembers(p, rec)
	}
	if len(members) == 0 {
		// Gone, or stopped: a log relay it left (its pipe held by
		// something outside the tree) ends with it before a new one
		// starts on the same log.
		endRelay(ctx, p, rec.Relay, relayWait)
		return nil
	}
	from := rec.SpecPath
	if from == "" {
		from = "an unnamed spec"
	}
	what := fmt.Sprintf("pid %d", members[0])
	if !slices.Contains(members, rec.Worker.Pid) {
		what = membersNote(members)
	}
	if l.OnStale == spec.StaleReplace {
		res, err := StopRecord(ctx, p, st, rec, 0) // its own stop block
		if err != nil {
			return err
		}
		if notify != nil {
			notify(fmt.Sprintf("on_stale = \"replace\": the previous launch of %q (from %s, %s) was still running; %s", l.Name, from, what, res.Message))
		}
		return nil
	}
	other := ""
	if rec.SpecPath != "" && l.SpecPath != "" && filepath.Clean(rec.SpecPath) != filepath.Clean(l.SpecPath) {
		other = " another spec file,"
	}
	e := &Error{Outcome: outcome.Locked, Err: ErrLocked, Name: l.Name, Spec: l,
		Msg:  fmt.Sprintf("launch %q is already running, recorded from%s %s (%s); nothing was started", l.Name, other, from, what),
		Hint: stopHint, Fix: FixStop}
	if other != "" {
		e.Hint, e.Fix = otherSpecHint, FixOtherSpec
	}
	return e
}

// stopHint is FixStop's hint.
const stopHint = "stop it (its Launch's Stop, or launcher.StopRecord), or set OnStale: \"replace\" to replace it"

// otherSpecHint is FixOtherSpec's hint: a launch of the same name from
// another spec file (another project) runs; never OnStale "replace",
// which would stop the other project's server.
const otherSpecHint = "launch names are shared by every launch using this state dir: rename this launch, give each project its own state dir (Options.StateDir), or, if the other one is yours to end, stop it first (launcher.StopRecord)"
