package launcher

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher/sigtree"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// exitedError is the exit-5 failure: the worker or root exited before ready.
func (la *Launch) exitedError(r *verify.Report, what string) *Error {
	r.Signals = la.exec.watch.SignalsSeen()
	if la.tree != nil {
		// The OOM killer's SIGKILL stops for no tracer: the launch cgroup's
		// memory.events counts it (cgroup v2 with the memory controller),
		// else the kernel log names the process it killed.
		if n := oomKills(la.tree.Cgroup); n > 0 {
			r.Signals = append(r.Signals, verify.Signal{Signal: "SIGKILL", Kernel: verify.KernelOOMKill})
		} else if pid := oomKilled(kmsgRecords(), la.tree.Root.Pid(), la.worker.Pid); pid > 0 {
			r.Signals = append(r.Signals, verify.Signal{Signal: "SIGKILL", ToPid: pid, Kernel: verify.KernelOOMKill})
		}
	}
	if len(r.Signals) > 0 {
		what += "; the tree received " + signalsFor(r.Signals)
	}
	r.Add(verify.KindExited, "%s", what)
	r.SetOutcome(outcome.Exited)
	r.Ready = false
	return &Error{Outcome: outcome.Exited, Msg: what, Tail: la.withTail(r), Report: r, Hint: "its whole output is in " + la.LogPath()}
}

// exitWhat describes how pid ended, with the root's status when known.
// When pid is the root, it has exited and its status comes with the reap:
// that is waited for up to 2 s (a loaded machine, the tracer letting go).
// Another worker's exit may leave the root running: 200 ms, then the
// status is left out.
func (la *Launch) exitWhat(pid int) string {
	root := la.tree.Root
	wait := 200 * time.Millisecond
	if pid == root.Pid() {
		wait = 2 * time.Second
	}
	select {
	case <-root.Done:
	case <-time.After(wait):
	}
	who := fmt.Sprintf("the worker (pid %d)", pid)
	if pid == root.Pid() {
		who = fmt.Sprintf("the launched process (pid %d)", pid)
	}
	if err := la.exec.watch.StartFault(); err != nil && pid == root.Pid() {
		return fmt.Sprintf("%s was ended before its first instruction: %v", who, err)
	}
	if root.Exited() && root.Cmd.ProcessState != nil {
		return fmt.Sprintf("%s exited before it was ready: %s", who, sigtree.ProcessStatus(root.Cmd.ProcessState))
	}
	return who + " exited before it was ready"
}

// hintFor says, in Go words, where to look for the cause of a failed
// verification of launch l (FixReport: the childproof command words its
// own from the report). The failed tree is stopped: a remedy it names
// must work on what is left (the spec), not on the tree.
func hintFor(r *verify.Report, l *spec.Launch) string {
	switch {
	case r.Caused(verify.ErrStaleExecEvidence, verify.KindEnvUnreadable):
		return "the worker exec'd from a thread other than its main one (childproof follows processes, not threads, so that exec's environment was not captured) and then rewrote its environment block: exec the worker from the main thread, or keep its environment block intact"
	case r.Has(verify.KindEnvUnreadable):
		return "the worker rewrote its environment block after its exec (a process title written over it, as setproctitle does, or the block moved or emptied); childproof reads the block at the worker's exec while it watches the launch — leave exec-time capture on (Options.NoExecCapture false, CHILDPROOF_NO_EXEC_CAPTURE unset), and let nothing else trace the launch"
	case r.EmptyAsGiven() != "":
		return fmt.Sprintf("%s was already empty when childproof started the launch (the worker has the very value it was given): give it a non-empty value in the launch's Env, its EnvFile or the caller's environment", r.EmptyAsGiven())
	case r.Has(verify.KindEnvMismatch, verify.KindEnvMissing):
		h := "childproof set it when it started the launch: something between the launch and the worker changed it (an env file re-sourced, an rc file, a wrapper)"
		if len(l.Dispatch) > 0 {
			h += "; package envres lints the dispatch chain for such a line"
		}
		return h
	case r.Has(verify.KindWrapper):
		return "exec the worker directly, without a login or interactive shell or an environment-resetting wrapper"
	case r.Has(verify.KindBindAddress):
		return "bind the worker to the declared address, or declare the one it uses (Port.Address; 0.0.0.0 or :: only with AllowAllInterfaces: true)"
	case r.Has(verify.KindPortNotOwned):
		return "the process that listens is not the worker: check Worker.Comm or Worker.Exe, or leave Worker zero to let the worker be the port's owner"
	}
	return ""
}

// signalsFor says the signals for an error message, naming a sender that
// is this very process (a Go test that signals itself, story 5).
func signalsFor(sigs []verify.Signal) string {
	parts := make([]string, len(sigs))
	for i, s := range sigs {
		parts[i] = s.String()
		if s.Kernel == "" && s.FromPid == os.Getpid() {
			parts[i] += " — that is this process itself"
		}
		if s.ToPid != 0 {
			parts[i] += fmt.Sprintf(", to pid %d", s.ToPid)
		}
	}
	return strings.Join(parts, "; ")
}

// oomKills is the oom_kill count of cgroup dir's memory.events: how many
// of its processes the kernel's OOM killer killed (0 without a cgroup).
func oomKills(dir string) int {
	if dir == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "memory.events"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// kmsgRecords reads what the kernel log holds now (/dev/kmsg: root only;
// nil otherwise), at most 2 MiB, without waiting for more.
func kmsgRecords() []string {
	// A raw descriptor: an *os.File of a non-blocking device would wait
	// in the runtime's poller for the next record.
	fd, err := syscall.Open("/dev/kmsg", syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var out []string
	buf := make([]byte, 8192)
	for total := 0; total < 2<<20; {
		n, err := syscall.Read(fd, buf)
		if n > 0 {
			out = append(out, string(buf[:n]))
			total += n
		}
		if errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EINTR) {
			continue // a record overwritten while we read; a signal
		}
		if err != nil || n <= 0 {
			break // EAGAIN: nothing more now
		}
	}
	return out
}

// oomKilled returns the first of pids that a kernel log record says the
// OOM killer killed ("Out of memory: Killed process 1234 (python3) …",
// "Memory cgroup out of memory: Killed process …"), or 0.
func oomKilled(records []string, pids ...int) int {
	for _, rec := range records {
		_, msg, ok := strings.Cut(rec, ";")
		if !ok || !strings.Contains(msg, "out of memory: Killed process ") && !strings.Contains(msg, "Out of memory: Killed process ") {
			continue
		}
		for _, pid := range pids {
			if pid > 0 && strings.Contains(msg, "Killed process "+strconv.Itoa(pid)+" (") {
				return pid
			}
		}
	}
	return 0
}
