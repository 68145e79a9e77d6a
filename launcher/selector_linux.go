package launcher

import (
	"fmt"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
)

// selectorQuiet is how long a tree in which a member owns a declared port
// but nothing matches the worker selector must stay unchanged (the same
// processes, the same comms) before the selector is called wrong: a
// server that binds in its supervisor and starts the selected process
// after the bind gets this long to do so.
const selectorQuiet = 750 * time.Millisecond

// selectorWatch tells a wrong worker selector at once instead of after
// ready.timeout: when the selector matches no process while a member of
// the tree owns a declared port and the tree has stopped changing.
type selectorWatch struct {
	quiet proctree.Stability
}

// check returns a failure when the selector is wrong: it matches nothing,
// a member of tree owns a declared port, and tree has been the same for
// selectorQuiet. Nil while that is not (yet) so. It asks within look k.
func (w *selectorWatch) check(la *Launch, k *verify.Look, r *verify.Report, tree []int) *Error {
	l := la.Spec
	if l.Worker.Comm == "" && l.Worker.Exe == "" || len(l.Ports) == 0 {
		return nil
	}
	if pid, _ := verify.DeclaredWorker(la.opts.Proc, tree, l.Worker.Comm, l.Worker.Exe, nil, la.exec.watch.ExecComm); pid != 0 {
		return nil // it matches (a job whose other ranks are not there yet)
	}
	owners := proctree.PortOwners(la.opts.Proc, k, la.Spec, tree)
	if len(owners) == 0 {
		w.quiet = proctree.Stability{}
		return nil
	}
	if !w.quiet.SettledFor(la.opts.Proc, tree, selectorQuiet) {
		return nil
	}
	return la.selectorError(r, owners, false)
}

// selectorError is the failure of a launch whose worker selector matches
// no process while others serve: exit 5, naming the candidates and the
// selector that would find them. atTimeout says the ready timeout ran out
// first (the message says so; the hint is still about the selector).
func (la *Launch) selectorError(r *verify.Report, owners []proctree.PortOwner, atTimeout bool) *Error {
	l := la.Spec
	sel := fmt.Sprintf("comm %q", l.Worker.Comm)
	if l.Worker.Exe != "" {
		sel = fmt.Sprintf("exe %q", l.Worker.Exe)
	}
	var cands []string
	for _, o := range owners {
		if l.Worker.Exe != "" {
			cands = append(cands, fmt.Sprintf("%s (pid %d, %s) owns port %d", o.Comm, o.Pid, o.Exe, o.Port))
		} else {
			cands = append(cands, fmt.Sprintf("%s (pid %d) owns port %d", o.Comm, o.Pid, o.Port))
		}
	}
	msg := fmt.Sprintf("the worker never appeared: %s matches nothing in the launched tree; %s", sel, strings.Join(cands, ", "))
	if atTimeout {
		msg += fmt.Sprintf(" (after the ready timeout, %s)", l.ReadyTimeout())
	}
	r.Add(verify.KindExited, "%s", msg)
	r.SetOutcome(outcome.Exited)
	r.Ready, r.Verified = false, false
	e := &Error{Outcome: outcome.Exited, Report: r, Msg: msg, Tail: la.withTail(r), Fix: FixSelector, Spec: l, Other: owners[0].Comm,
		Hint: fmt.Sprintf("the selector is wrong, not the timeout: select the process that serves, Worker: schema.Worker{Comm: %q}, or leave Worker zero to take the port's owner", owners[0].Comm)}
	if l.Worker.Exe != "" {
		e.Other = owners[0].Exe
		e.Hint = fmt.Sprintf("the selector is wrong, not the timeout: select the process that serves, Worker: schema.Worker{Exe: %q}, or leave Worker zero to take the port's owner", owners[0].Exe)
	}
	return e
}

// treeComms names the processes of tree ("python3 (pid 12), bash (pid
// 11)"), at most eight.
func (la *Launch) treeComms(tree []int) string {
	var out []string
	for _, pid := range tree {
		if len(out) == 8 {
			out = append(out, "…")
			break
		}
		if c, err := la.opts.Proc.Comm(pid); err == nil {
			out = append(out, fmt.Sprintf("%s (pid %d)", c, pid))
		}
	}
	return strings.Join(out, ", ")
}
