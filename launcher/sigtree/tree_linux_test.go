package sigtree

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/pidfd"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/proc"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// TestTerminate stops a recorded tree of one pinned process: one that
// exits on SIGTERM within the grace, and one that ignores it and is
// killed once the grace has passed.
func TestTerminate(t *testing.T) {
	type result struct{ Signalled, Killed, Exited bool }
	tests := []struct {
		name   string
		script string
		grace  time.Duration
		want   result
	}{
		{"exits on SIGTERM", "echo ready; read x", time.Minute, result{true, false, true}},
		{"ignores SIGTERM", "trap '' TERM; echo ready; read x", 100 * time.Millisecond, result{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tt.script)
			in := startReady(t, cmd)
			defer in.Close()
			defer cmd.Wait()
			defer cmd.Process.Kill()
			fd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			tr := &Tree{P: proc.Default, Leader: -1, Pinned: map[int]int{cmd.Process.Pid: fd}}
			var got result
			got.Signalled, got.Killed = tr.Terminate(context.Background(), tt.grace, time.Minute, func() bool { return pidfd.Exited(fd) && tr.WatchedGone() })
			tr.Unwatch()
			got.Exited = pidfd.Exited(fd)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Terminate (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTerminateLaunched stops a launched root that exits on SIGTERM: it is
// watched and waited for through the tree's own pidfd of it (Leader),
// which Unwatch leaves open, and Terminate returns once it is reaped.
func TestTerminateLaunched(t *testing.T) {
	root, leader := startLaunchedRoot(t, "echo ready; read x")
	cmd := root.Cmd
	tr := &Tree{P: proc.Default, Root: root, Leader: leader, Pgid: cmd.Process.Pid}
	signalled, killed := tr.Terminate(context.Background(), time.Minute, 0, func() bool {
		return tr.WatchedGone() && root.Exited() && len(tr.Live()) == 0
	})
	if !signalled || killed || !root.Exited() {
		t.Errorf("Terminate = signalled %v, killed %v, reaped %v; want true, false, true", signalled, killed, root.Exited())
	}
	if len(tr.watched) != 1 || !tr.watched[0].borrowed {
		t.Errorf("watched = %+v, want the root through the tree's pidfd of it", tr.watched)
	}
	tr.Unwatch()
	if _, err := unix.FcntlInt(uintptr(leader), unix.F_GETFD, 0); err != nil {
		t.Errorf("the tree's pidfd of the root after Unwatch: %v", err)
	}
}

// TestTerminateRootFirst: with RootFirst, Terminate's wait looks at gone
// again once the root is reaped, not every goneRecheck while the root
// takes its time to exit after SIGTERM (here 300 ms: 12 rechecks).
func TestTerminateRootFirst(t *testing.T) {
	root, leader := startLaunchedRoot(t, "trap 'sleep 0.3; exit 0' TERM; echo ready; while :; do sleep 1; done")
	cmd := root.Cmd
	tr := &Tree{P: proc.Default, Root: root, Leader: leader, Pgid: cmd.Process.Pid, RootFirst: true}
	looks := 0
	signalled, killed := tr.Terminate(context.Background(), time.Minute, 0, func() bool {
		looks++
		return root.Exited() && tr.WatchedGone() && len(tr.Live()) == 0
	})
	tr.Unwatch()
	if !signalled || killed || !root.Exited() {
		t.Fatalf("Terminate = signalled %v, killed %v, reaped %v; want true, false, true", signalled, killed, root.Exited())
	}
	// Before the signal, at the wait's start, when the loop's sleep (a
	// watched member) exits, and once the root is reaped.
	if looks > 4 {
		t.Errorf("gone was looked at %d times; want at most 4", looks)
	}
}

// startReady starts cmd, a shell that prints a line once it is ready and
// then reads its stdin, and returns once that line came: the write end
// of its stdin, for the caller to close. A cmd that does not get there
// is killed and reaped, and the test fails.
func startReady(t *testing.T, cmd *exec.Cmd) io.WriteCloser {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("waiting for sh to be ready: %v", err)
	}
	return in
}

// TestMembersHeldCgroup lists a launched tree's cgroup through the
// cgroup.procs descriptor it holds, as a read by path lists it, before
// and after a member exits; once released, by path.
func TestMembersHeldCgroup(t *testing.T) {
	cg, f := proctree.NewCgroup("heldprocs")
	if cg == "" {
		t.Skip("no cgroup of our own here (needs root and cgroup v2)")
	}
	defer proctree.RemoveCgroup(cg)
	cmd := exec.Command("sh", "-c", "sleep 100 & echo $!; sleep 100 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(f.Fd())}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	root := &Root{Cmd: cmd, Done: make(chan struct{})}
	defer func() {
		proctree.CgroupKill(cg)
		cmd.Wait()
	}()
	var sleeper int
	if _, err := fmt.Fscan(bufio.NewReader(out), &sleeper); err != nil {
		t.Fatalf("reading the first sleep's pid: %v", err)
	}
	tr := &Tree{P: proc.Default, Root: root, Leader: -1, Cgroup: cg}
	same := func(want int) {
		t.Helper()
		for range 500 {
			byPath, err := proctree.CgroupPids(cg)
			if err != nil {
				t.Fatal(err)
			}
			held := tr.Members()
			slices.Sort(byPath)
			slices.Sort(held)
			if len(byPath) == want && cmp.Equal(held, byPath) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("the held cgroup.procs and the one read by path never agreed on %d members", want)
	}
	same(3)
	if !tr.procs.open {
		t.Errorf("Members did not hold the cgroup's cgroup.procs")
	}
	unix.Kill(sleeper, unix.SIGKILL)
	same(2)
	tr.ReleaseCgroup()
	if tr.procs.open {
		t.Errorf("ReleaseCgroup left the descriptor open")
	}
	same(2)
}

// TestParentsFirst: a real sh with a sleep child (and the child's own
// sleep) is ordered parent, child, grandchild, whatever order the pids
// come in; depth counts within the set, ties keep the given order.
func TestParentsFirst(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sh -c 'sleep 100 & echo $!; wait' & wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("no pid from the inner sh")
	}
	p := proc.FS{Root: "/proc"}
	var grandchild int
	if _, err := fmt.Sscan(sc.Text(), &grandchild); err != nil {
		t.Fatal(err)
	}
	s, err := p.Stat(grandchild)
	if err != nil {
		t.Fatal(err)
	}
	child, top := s.PPid, cmd.Process.Pid
	t.Cleanup(func() { unix.Kill(grandchild, unix.SIGKILL); unix.Kill(child, unix.SIGKILL) })
	if got, want := parentsFirst(p, []int{grandchild, child, top}), []int{top, child, grandchild}; !cmp.Equal(got, want) {
		t.Errorf("parentsFirst = %v, want %v", got, want)
	}
	// the depth counts within the set: without top, child is a top
	// (after init, which came first), grandchild below it
	if got, want := parentsFirst(p, []int{grandchild, 1, child}), []int{1, child, grandchild}; !cmp.Equal(got, want) {
		t.Errorf("parentsFirst of a part = %v, want %v", got, want)
	}
}

// startLaunchedRoot starts sh -c script as a launched root is started
// (its own process group, a pidfd from the start) and waits for its
// "ready" line. It returns the root and its pidfd; the test's cleanup
// kills and reaps it. It skips the test where the start gave no pidfd.
func startLaunchedRoot(t *testing.T, script string) (*Root, int) {
	t.Helper()
	leader := -1
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, PidFD: &leader}
	in := startReady(t, cmd)
	t.Cleanup(func() { in.Close() })
	if leader < 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skip("no pidfd from the start")
	}
	t.Cleanup(func() { unix.Close(leader) })
	root := &Root{Cmd: cmd, Done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(root.Done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-root.Done
	})
	return root, leader
}
