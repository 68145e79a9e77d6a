package sigtree

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unsafe"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/proc"
	"golang.org/x/sys/unix"
)

// Members lists the tree's live processes, root first: the cgroup's
// members where there is one; for a launched tree without one, the root's
// descendants plus re-parented orphans of the same process group.
func (t *Tree) Members() []int {
	var out []int
	root := 0
	if t.Root != nil {
		root = t.Root.Pid()
	}
	if t.Cgroup != "" {
		if pids, err := t.cgroupPids(); err == nil {
			if root != 0 && slices.Contains(pids, root) {
				out = append(out, root)
			}
			for _, p := range pids {
				if p != root {
					out = append(out, p)
				}
			}
			return out
		}
	}
	if t.Root == nil {
		// A recorded tree without a cgroup: the pinned processes (the
		// recorded worker) and their descendants — a pre-fork server's
		// workers, whatever uid they run as — and every process that
		// carries the launch's marker.
		for pid := range t.Pinned {
			out = append(out, pid)
			out = append(out, t.P.Descendants(pid)...)
		}
		return t.withMarked(out)
	}
	if t.Marker != "" {
		// Without a cgroup: the root's descendants and every process
		// carrying the marker (a setsid daemon that left the group); a
		// stranger in the process group is none of them.
		if !t.Root.Exited() {
			out = append(out, root)
			out = append(out, t.P.Descendants(root)...)
		}
		for _, k := range t.ownOrphans() {
			if k != root && !slices.Contains(out, k) && proctree.HasMarker(t.P, k, t.Marker) {
				out = append(out, k)
				out = append(out, t.P.Descendants(k)...)
			}
		}
		if t.Daemons || t.scan {
			// Seen forked by the tracer: ours even once re-parented
			// (before the root is reaped, or out of a root that lives).
			out = t.withForked(out)
		}
		if t.scan {
			return t.withMarked(out)
		}
		if t.Daemons && t.Root.Exited() {
			// The root is gone: a daemon that double-forked out of the
			// tree (fork, setsid, fork) is re-parented to init, not to
			// us (a detached launch is no subreaper). It carries the
			// marker: it is found as stop finds it (scanned at most
			// every markedEvery while the launch is watched).
			return t.withMarkedCached(out)
		}
		return out
	}
	if !t.Root.Exited() {
		out = append(out, root)
		out = append(out, t.P.Descendants(root)...)
	}
	for _, k := range t.ownOrphans() {
		if k == root || slices.Contains(out, k) {
			continue
		}
		if s, err := t.P.Stat(k); err == nil && s.Pgrp == t.Pgid {
			out = append(out, k)
			out = append(out, t.P.Descendants(k)...)
		}
	}
	return out
}

// cgroupPids lists the processes of the tree's cgroup. A launched tree
// reads its cgroup.procs through one descriptor it holds open, read again
// from offset 0 (which restarts the kernel's listing): each open by path
// walks the cgroup mount, which cost as much as the read. A recorded tree,
// or one whose descriptor is released or failed, reads it by path.
func (t *Tree) cgroupPids() ([]int, error) {
	if t.Root == nil {
		return proctree.CgroupPids(t.Cgroup)
	}
	c := &t.procs
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return proctree.CgroupPids(t.Cgroup)
	}
	if !c.open {
		fd, err := unix.Open(filepath.Join(t.Cgroup, "cgroup.procs"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		for err == unix.EINTR {
			fd, err = unix.Open(filepath.Join(t.Cgroup, "cgroup.procs"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		}
		if err != nil {
			return proctree.CgroupPids(t.Cgroup)
		}
		c.fd, c.open = fd, true
		c.buf = make([]byte, 0, 256) // a launch's few pids; grown as needed
	}
	buf := c.buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Pread(c.fd, buf[len(buf):cap(buf)], int64(len(buf)))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			// The cgroup removed, say: read by path from now on, as
			// before it was held.
			unix.Close(c.fd)
			c.open, c.released = false, true
			return proctree.CgroupPids(t.Cgroup)
		}
		if n <= 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	c.buf = buf
	return proctree.ParsePids(buf), nil
}

// ReleaseCgroup closes the cgroup.procs descriptor Members holds (before
// the cgroup is removed, or when the launch lets go of its tree); Members
// reads the file by path afterwards.
func (t *Tree) ReleaseCgroup() {
	c := &t.procs
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open {
		unix.Close(c.fd)
		c.open = false
	}
	c.released = true
}

// ownOrphans lists this process's children when it is a child subreaper
// (Options.Subreaper, or its caller's own prctl): only then can a process
// of a launched tree other than its root (which is reaped on its own) be
// re-parented to us. Otherwise every child of ours is one we started (a
// root, a watchdog, a relay, a readiness check) and none is listed:
// reading every thread's task/TID/children costs system time on each
// look and again when the threads' entries are flushed.
func (t *Tree) ownOrphans() []int {
	var sub int32
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&sub)), 0, 0, 0); err == nil && sub == 0 {
		return nil
	}
	kids, _ := t.P.Children(os.Getpid())
	return kids
}

// Member re-checks, after its pidfd is open, that pid is still ours.
func (t *Tree) Member(pid int) bool {
	if t.Cgroup != "" {
		return proctree.InCgroup(t.P, pid, t.Cgroup)
	}
	if t.Marker != "" && proctree.HasMarker(t.P, pid, t.Marker) {
		return true
	}
	if t.Forked != nil {
		// Seen forked by the tracer, the same process since (its start
		// time): a daemon re-parented out of the tree whose title hides
		// the marker — and its descendants (nginx's workers, forked by
		// its master once the tracer had let go, carry its title too).
		for _, f := range t.Forked() {
			if pid == f || slices.Contains(t.P.Descendants(f), pid) {
				return true
			}
		}
	}
	if t.Root == nil {
		for pinned := range t.Pinned {
			if pid == pinned || slices.Contains(t.P.Descendants(pinned), pid) {
				return true
			}
		}
		return false
	}
	root := t.Root.Pid()
	if t.Marker != "" {
		return pid == root || slices.Contains(t.P.Descendants(root), pid)
	}
	s, err := t.P.Stat(pid)
	return err == nil && (s.Pgrp == t.Pgid || pid == root || slices.Contains(t.P.Descendants(root), pid))
}

// Signal sends sig to the tree. Without a cgroup it signals the process
// group through the leader's pidfd, then each member that left the group
// through its own pidfd. Each process gets one signal, because a second
// SIGINT can land after a graceful handler is gone and kill the worker
// with 128+2. With a cgroup only its members are signalled, each through
// its own pidfd, since a stranger in the caller's session can move itself
// into the launch's process group but never into its cgroup. SIGKILL also
// kills the cgroup.
func (t *Tree) Signal(sig unix.Signal) {
	scan := t.scan
	t.scan = true
	defer func() { t.scan = scan }()
	t.signal(sig, t.Members())
}

// signal is Signal with the tree's Members as just read. Terminate
// passes the list it watches, read a moment before its first signal:
// a second read could only add a process forked in that moment, and one
// forked just after any read is missed all the same (it is found by the
// gone check and SIGKILLed after the grace).
func (t *Tree) signal(sig unix.Signal, members []int) {
	grouped := false
	if t.Leader >= 0 && t.Cgroup == "" && t.Marker == "" {
		grouped = unix.PidfdSendSignal(t.Leader, sig, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP) == nil
	}
	inGroup := func(pid int) bool {
		if !grouped {
			return false // no stat to read: nothing went to the group
		}
		s, err := t.P.Stat(pid)
		return err == nil && s.Pgrp == t.Pgid
	}
	// Parents before their children: a supervisor signalled after its
	// child would see the child die and fork a replacement first (a
	// dispatch loop that restarts its worker), which no pidfd watches.
	pids := slices.Clip(members)
	for pid := range t.Pinned {
		if !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	for _, pid := range parentsFirst(t.P, pids) {
		if inGroup(pid) {
			continue
		}
		if fd, ok := t.Pinned[pid]; ok {
			unix.PidfdSendSignal(fd, sig, nil, 0)
			continue
		}
		if fd := t.watchedFd(pid); fd >= 0 && unix.PidfdSendSignal(fd, sig, nil, 0) == nil {
			// Terminate's pidfd of it, opened and checked before the
			// first signal; once that process has exited, its pid
			// may name another: opened and checked anew below.
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		if t.Member(pid) {
			unix.PidfdSendSignal(fd, sig, nil, 0)
		}
		unix.Close(fd)
	}
	if sig == unix.SIGKILL && t.Cgroup != "" {
		proctree.CgroupKill(t.Cgroup)
	}
}

// parentsFirst orders pids so that each comes after its ancestors among
// them (by depth within the set; a pid whose stat cannot be read counts as
// a top). The order among processes of one depth is pids' own.
func parentsFirst(p proc.FS, pids []int) []int {
	if len(pids) < 2 {
		return pids // no order to find: no stat to read
	}
	parent := make(map[int]int, len(pids))
	for _, pid := range pids {
		if s, err := p.Stat(pid); err == nil {
			parent[pid] = s.PPid
		}
	}
	depth := make(map[int]int, len(pids))
	for _, pid := range pids {
		d := 0
		for q, ok := parent[pid]; ok && d < len(pids); q, ok = parent[q] {
			if !slices.Contains(pids, q) {
				break
			}
			d++
		}
		depth[pid] = d
	}
	out := slices.Clone(pids)
	slices.SortStableFunc(out, func(a, b int) int { return depth[a] - depth[b] })
	return out
}

// Terminate sends the tree its stop signal (StopSig) unless gone already says it is gone, waits
// up to grace (or until ctx ends) for gone, then SIGKILLs the tree and
// every watched member and waits up to killWait. Members are watched
// through pidfds opened before the first signal, so that one re-parented
// away from us is still seen to exit. It reports what it sent.
func (t *Tree) Terminate(ctx context.Context, grace, killWait time.Duration, gone func() bool) (signalled, killed bool) {
	t.scan = true
	members := t.Members()
	for _, pid := range members {
		if fd := t.heldFd(pid); fd >= 0 {
			t.watched = append(t.watched, watch{pid: pid, fd: fd, borrowed: true})
			continue
		}
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			if t.Member(pid) {
				t.watched = append(t.watched, watch{pid: pid, fd: fd})
			} else {
				unix.Close(fd)
			}
		}
	}
	if gone() {
		return false, false
	}
	t.signal(t.stopSignal(), members)
	if t.WaitGone(ctx, grace, gone) {
		return true, false
	}
	t.Signal(unix.SIGKILL)
	for _, w := range t.watched {
		unix.PidfdSendSignal(w.fd, unix.SIGKILL, nil, 0)
	}
	t.WaitGone(context.Background(), killWait, gone)
	return true, true
}

// heldFd is a pidfd the tree already holds of member pid, taken before
// pid could name another process: the root's (Leader) while it is not
// reaped, or a pinned one whose process runs. It is -1 when there is
// none: Terminate opens one and checks membership through it.
func (t *Tree) heldFd(pid int) int {
	if fd, ok := t.Pinned[pid]; ok {
		if pidfd.Exited(fd) {
			return -1
		}
		return fd
	}
	if t.Root != nil && t.Leader >= 0 && pid == t.Root.Pid() && !t.Root.Exited() {
		return t.Leader
	}
	return -1
}

// watchedFd is the pidfd Terminate watches pid through, -1 for none.
func (t *Tree) watchedFd(pid int) int {
	for _, w := range t.watched {
		if w.pid == pid {
			return w.fd
		}
	}
	return -1
}

// goneRecheck bounds each of WaitGone's waits: gone is checked again at
// least this often for what no held pidfd covers (members found after the
// first signal: marked processes, cgroup members, forks) and for ctx.
const goneRecheck = 25 * time.Millisecond

// WaitGone waits, reaping orphans, until gone, d passes or ctx ends; it
// checks gone again when a held member exits or the root is reaped, and
// at least every goneRecheck — but for a tree whose gone needs the root
// reaped (RootFirst), not before that reap: a look then could only find
// the tree still there.
func (t *Tree) WaitGone(ctx context.Context, d time.Duration, gone func() bool) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		t.ReapOrphans(0)
		if gone() {
			return true
		}
		wait := min(time.Until(end), goneRecheck)
		if t.RootFirst && t.Root != nil && !t.Root.Exited() {
			wait = time.Until(end)
		}
		t.waitExit(ctx, wait)
	}
	return gone()
}

// waitExit waits up to d for a held member (watched, pinned or the group
// leader) still running to exit; when none is, for the root to be reaped
// or ctx to end. While the root is not reaped, its own pidfds are left
// out: its exit leaves the tree there until it is reaped (Done), and
// waiting on them would wake the wait once more for nothing.
func (t *Tree) waitExit(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	var reaped <-chan struct{}
	root := -1
	if t.Root != nil && !t.Root.Exited() {
		reaped, root = t.Root.Done, t.Root.Pid()
	}
	fds := make([]int, 0, len(t.watched)+len(t.Pinned)+1)
	for _, w := range t.watched {
		if w.pid != root {
			fds = append(fds, w.fd)
		}
	}
	for pid, fd := range t.Pinned {
		if pid != root {
			fds = append(fds, fd)
		}
	}
	if t.Leader >= 0 && reaped == nil {
		fds = append(fds, t.Leader)
	}
	if len(fds) > 0 && pidfd.WaitAny(fds, d) {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-reaped:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// WatchedGone reports whether every watched member has exited (a reaped
// root has: its pidfd is not polled).
func (t *Tree) WatchedGone() bool {
	root := -1
	if t.Root != nil && t.Root.Exited() {
		root = t.Root.Pid()
	}
	for _, w := range t.watched {
		if w.pid != root && !pidfd.Exited(w.fd) {
			return false
		}
	}
	return true
}

// ReapOrphans waits for re-parented zombies of a launched tree (but keep).
func (t *Tree) ReapOrphans(keep int) {
	if t.Root == nil {
		return
	}
	for _, k := range t.ownOrphans() {
		if k == t.Root.Pid() || k == keep {
			continue
		}
		s, err := t.P.Stat(k)
		if err != nil || s.State != 'Z' {
			continue
		}
		if s.Pgrp == t.Pgid || t.Cgroup != "" && t.Member(k) {
			var ws unix.WaitStatus
			unix.Wait4(k, &ws, unix.WNOHANG, nil)
		}
	}
}

// Live is Members without zombies.
func (t *Tree) Live() []int {
	var out []int
	for _, p := range t.Members() {
		if s, err := t.P.Stat(p); err == nil && s.State != 'Z' {
			out = append(out, p)
		}
	}
	return out
}

// Unwatch closes the watched members' pidfds (not the borrowed ones).
func (t *Tree) Unwatch() {
	for _, w := range t.watched {
		if !w.borrowed {
			unix.Close(w.fd)
		}
	}
	t.watched = nil
}

// markedEvery is how often a launched tree whose root has exited scans
// /proc for the processes carrying its marker (withMarkedCached): each
// scan reads every process's environ.
const markedEvery = 25 * time.Millisecond

// withMarkedCached is withMarked with the scan of /proc made at most every
// markedEvery (the worker is looked for every millisecond).
func (t *Tree) withMarkedCached(pids []int) []int {
	if t.Marker == "" || t.Cgroup != "" {
		return pids
	}
	fresh := time.Since(t.markedAt) >= markedEvery
	if fresh {
		t.marked = proctree.MarkerPids(t.P, t.Marker)[t.Marker]
		t.markedAt = time.Now()
	}
	out := t.addLiveMarked(pids)
	if len(out) == 0 && !fresh {
		// An empty tree ends the launch ("exited before it was ready"):
		// decided on a scan of now, not on one up to markedEvery old that
		// ran before a daemon's fork (the double fork of run_daemon_nocgroup).
		t.marked = proctree.MarkerPids(t.P, t.Marker)[t.Marker]
		t.markedAt = time.Now()
		out = t.addLiveMarked(pids)
	}
	return out
}

// withForked adds to pids the live processes the tracer saw forked in the
// tree, and their descendants, each once.
func (t *Tree) withForked(pids []int) []int {
	if t.Forked == nil {
		return pids
	}
	for _, pid := range t.Forked() {
		for _, p := range append([]int{pid}, t.P.Descendants(pid)...) {
			if !slices.Contains(pids, p) {
				pids = append(pids, p)
			}
		}
	}
	return pids
}

// addLiveMarked adds to pids the marked processes still running.
func (t *Tree) addLiveMarked(pids []int) []int {
	for _, pid := range t.marked {
		if !slices.Contains(pids, pid) {
			if s, err := t.P.Stat(pid); err == nil && s.State != 'Z' {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// withMarked adds to pids the processes that carry the tree's marker
// (none without one, or with a cgroup), each once.
func (t *Tree) withMarked(pids []int) []int {
	if t.Marker == "" || t.Cgroup != "" {
		return pids
	}
	for _, pid := range proctree.MarkerPids(t.P, t.Marker)[t.Marker] {
		if !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
