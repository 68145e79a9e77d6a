package verify

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/probe"
	"github.com/childproof/childproof/internal/wrapper"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
)

// Check says what to verify on a running tree. Verify only reads a Check:
// it is safe for concurrent use while no one changes it.
type Check struct {
	Name string
	// Root is the launch root (or the pid the user gave).
	Root int
	// Worker is the worker; 0 means find it below Root (Selector, else
	// the port's owner, else Root).
	Worker int
	// Tree is where to look for socket owners first; nil means Root and
	// its descendants.
	Tree []int
	WorkerSelector
	Expect Expect
	Ports  []spec.Port
	// AnyAddress skips the bind-address check (verify --pid --port).
	AnyAddress bool
	// AnyMember accepts a declared port held by any member of Tree (a
	// multi-process job: torchrun's agent holds the rendezvous port, not
	// a rank), not only by the worker.
	AnyMember bool
	// Forbid are the wrapper rule names not allowed between Root and the
	// worker.
	Forbid []string
	Readiness
	// ExecEnv is exec-time evidence of the worker's environment (nil:
	// none); while it holds, the worker is judged by it, not by its live
	// block, which the worker may have rewritten (setproctitle).
	ExecEnv *ExecEnv
	// Owners, when not nil, says who must own each declared port (by
	// number) in a launch of worker roles: a port a role lists, a process
	// of that role; a port no role lists (absent here), any member of
	// Tree. It replaces the rule that the worker owns every port.
	Owners map[int]PortOwners
	// Count, above 1, makes the check a multi-process job's (verify --pid
	// --count): with Worker 0, the workers are the Count deepest exec'd
	// processes of Tree matching Comm or Exe (Workers), each verified on
	// its environment (Report.Workers), a declared port may be held by
	// any member (AnyMember), and fewer than Count is a problem. 0 or 1:
	// one worker.
	Count int
	// Volatile reports the names the launched tree sets anew itself
	// (spec.Launch.IsVolatile): the tree judgement exempts them. Nil:
	// none.
	Volatile func(name string) bool
	// Look is the look at the tree that chose Worker, whose answers
	// about the declared ports' listeners and their holders stand for
	// the port check before the probe (nil: a look of its own). Its
	// questions about a tree that is not Tree are asked afresh.
	Look *Look
}

// PortOwners are the processes of the worker role that lists a port. They
// are plain data, safe for concurrent use while no one changes them.
type PortOwners struct {
	Role string
	Pids []int
}

// WorkerSelector names the worker below a check's root when Check.Worker
// does not. It is plain data, safe for concurrent use while no one changes
// it.
type WorkerSelector struct {
	// Comm is the worker's exact /proc/PID/comm; Exe its executable (both
	// empty: the owner of a declared port, else Root).
	Comm string
	Exe  string
	// Deepest picks the deepest descendant of Root as the worker when no
	// selector or port names one (verify --pid on a wrapper).
	Deepest bool
}

// Readiness is how a check probes that the worker serves. It is plain data,
// safe for concurrent use while no one changes it.
type Readiness struct {
	// ReadyHTTP is a path to GET (2xx); empty: a TCP connect.
	ReadyHTTP string
	// NoReady skips the probe: owning the ports is ready.
	NoReady bool
}

// Digester computes the keyed digest of a variable's value: the only form
// in which a value leaves a report unless values are asked for.
type Digester interface {
	Digest(name, value string) string
}

// Verifier runs checks against the kernel's records. It is safe for
// concurrent use when its State is (a launcher.State is); its fields must
// not be changed while it is in use.
type Verifier struct {
	// Proc is the /proc reader; the zero value reads /proc.
	Proc proc.FS
	// State computes the keyed digests values are compared and shown as
	// (a launcher.State); required.
	State Digester
	// ShowValues puts the checked values into reports; false: digests
	// only.
	ShowValues bool
}

// CheckFromSpec returns the check a spec asks for, expecting x in the
// worker's environ.
func CheckFromSpec(l *spec.Launch, x Expect) Check {
	return Check{
		Name:           l.Name,
		WorkerSelector: WorkerSelector{Comm: l.Worker.Comm, Exe: l.Worker.Exe},
		Expect:         x,
		Ports:          l.Ports,
		Forbid:         l.EffectiveForbidWrappers(),
		Readiness:      Readiness{ReadyHTTP: l.Ready.HTTP},
		Volatile:       l.IsVolatile,
	}
}

// Verify runs c once and returns the report; Verified is set when there is
// no problem.
func (v *Verifier) Verify(ctx context.Context, c Check) *Report {
	r := NewReport(c.Name)
	r.Attempts = 1
	tree := c.Tree
	if tree == nil {
		tree = append([]int{c.Root}, v.Proc.Descendants(c.Root)...)
	}
	// The worker's choice by its port and the port check before the
	// probe are one look at the tree (one dump and one read of the
	// tree's fd tables per port); the check after the probe looks again.
	k := c.Look
	if k == nil {
		k = newLook(v.Proc, c.Root)
	}
	worker := c.Worker
	var job []int
	if worker == 0 && c.Count > 1 {
		job = Workers(v.Proc, tree, c.Comm, c.Exe, c.Count, nil)
		if len(job) < c.Count {
			r.Add(KindExited, "%d of the job's %d workers run below pid %d (exec'd processes matching %s)", len(job), c.Count, c.Root, c.selectorText())
			r.SetOutcome(r.Judged())
			return r
		}
		worker, c.AnyMember = job[0], true
	}
	if worker == 0 {
		worker = v.findWorker(c, tree, k)
	}
	if worker == 0 {
		r.Add(KindExited, "no worker found below pid %d", c.Root)
		r.SetOutcome(r.Judged())
		return r
	}
	fp, err := TakeFingerprint(v.Proc, worker)
	if err != nil {
		r.Add(KindExited, "worker pid %d: %v", worker, err)
		r.SetOutcome(r.Judged())
		return r
	}
	r.Worker = &WorkerInfo{Pid: fp.Pid, Comm: fp.Comm, Exe: fp.Exe, StartTime: fp.StartTime, UID: fp.UID}
	v.checkChain(r, c, worker)
	v.checkEnv(r, c, worker)
	owned := v.checkPorts(r, c, worker, tree, k)
	if !c.NoReady && owned {
		if err := probe.Ready(probe.FromNetNSOf(ctx, v.Proc.Root, worker), c.Ports, c.ReadyHTTP, 2*time.Second); err != nil {
			r.Add(KindNotReady, "%v", err)
		} else {
			// The answer proves nothing by itself: the owner must still be the worker.
			before := len(r.Problems)
			r2 := NewReport("")
			v.CheckPorts(r2, c, worker, tree)
			for _, p := range r2.Problems {
				if !slices.Contains(r.Problems, p) {
					r.Problems = append(r.Problems, p)
				}
			}
			r.Ready = len(r.Problems) == before
		}
	} else if c.NoReady {
		r.Ready = owned
	}
	if len(job) > 1 {
		// Every worker of the job, each on its own environment.
		r.Workers = []WorkerCheck{r.WorkerCheck("")}
		for i, pid := range job[1:] {
			rc := c
			rc.Worker, rc.Ports, rc.NoReady, rc.Count, rc.Tree = pid, nil, true, 0, tree
			r.AddWorker(v.Verify(ctx, rc), "", WorkerPlace("", i+1, len(job)))
		}
	}
	r.Verified = len(r.Problems) == 0
	r.SetOutcome(r.Judged())
	return r
}

// selectorText names c's worker selector for a message.
func (c Check) selectorText() string {
	if c.Comm != "" {
		return fmt.Sprintf("comm %q", c.Comm)
	}
	return fmt.Sprintf("exe %q", c.Exe)
}

// findWorker picks the worker among tree: Comm or Exe, else the owner of a
// declared port, else the root.
func (v *Verifier) findWorker(c Check, tree []int, k *Look) int {
	if pid, decided := declaredWorker(v.Proc, k, tree, c.Comm, c.Exe, c.Ports, nil); decided || pid != 0 {
		return pid
	}
	if c.Deepest {
		return deepestDescendant(v.Proc, c.Root)
	}
	return c.Root
}

// chain returns the processes from root down to worker's parent, root
// first. When worker is not below root (re-parented), it returns the
// ancestors below the first one that is not ours.
func chain(p proc.FS, root, worker int) []int {
	if root == worker {
		return nil
	}
	anc := p.Ancestors(worker, root)
	if i := slices.Index(anc, root); i >= 0 {
		anc = anc[:i+1]
	} else {
		return nil
	}
	slices.Reverse(anc)
	return anc
}

func (v *Verifier) checkChain(r *Report, c Check, worker int) {
	// A wrapper is judged by what it does to the names the worker is
	// checked for (internal/wrapper's table): su without a login flag
	// keeps every name but HOME, SHELL, USER and LOGNAME.
	protected := c.Expect.names()
	for _, pid := range chain(v.Proc, c.Root, worker) {
		argv, _ := v.Proc.Cmdline(pid)
		comm, _ := v.Proc.Comm(pid)
		if argv == nil {
			argv = []string{}
		}
		r.Chain = append(r.Chain, ChainEntry{Pid: pid, Comm: comm, Argv: argv})
		for _, rule := range wrapper.ClassifyFor(argv, protected) {
			if slices.Contains(c.Forbid, rule) {
				r.Add(KindWrapper, "pid %d (%s) between the launch root and the worker is a %s: %s", pid, comm, rule, strings.Join(argv, " "))
			}
		}
	}
}

func (v *Verifier) checkEnv(r *Report, c Check, worker int) {
	x := c.Expect
	names := x.names()
	if len(names) == 0 {
		return
	}
	live, err := v.Proc.LiveEnv(worker)
	ev := c.ExecEnv
	// Whether the exec-time evidence still holds (and why not, stale)
	// matters only where the live block is not intact: an intact one is
	// the evidence whatever the capture says.
	var usable bool
	var stale error
	if err != nil || live.Partial() {
		usable, stale = ev.usable(v.Proc, worker)
	}
	if !usable || err == nil && !live.Partial() {
		// An intact live block is the block of the worker's last exec:
		// it is the evidence (and newer than a capture that an exec the
		// tracer did not see would have made stale).
		ev = nil
	}
	if err != nil && ev == nil {
		for _, n := range names {
			r.Env = append(r.Env, EnvCheck{Name: n})
		}
		r.AddAbout(KindEnvMissing, Subject{Pid: worker}, err, "cannot read the worker's environ (pid %d): %v", worker, err)
		return
	}
	// lookup answers a name from the evidence: the exec-time block while
	// it holds, else the live one.
	lookup := func(n string) (digest string, present bool, value *string) {
		vars := live.Vars
		if ev != nil && ev.Vars == nil {
			d, ok := ev.Digests[n]
			return d, ok, nil
		}
		if ev != nil {
			vars = ev.Vars
		}
		val, ok := proc.Lookup(vars, n)
		if !ok {
			return "", false, nil
		}
		return v.State.Digest(n, val), true, &val
	}
	switch {
	case ev != nil:
		r.EnvEvidence = EvidenceExec
		if live.Rewritten != "" {
			r.EnvNote = fmt.Sprintf("the worker rewrote its environment block after its exec (%s); judged by the block captured at its exec", live.Rewritten)
		}
	case live.Rewritten != "":
		r.EnvEvidence = EvidenceLive
		r.EnvNote = fmt.Sprintf("the worker rewrote its environment block after its exec (%s) and no exec-time evidence was captured", live.Rewritten)
		if stale != nil {
			r.EnvNote = fmt.Sprintf("the worker rewrote its environment block after its exec (%s); %v", live.Rewritten, stale)
		}
	case live.Unreadable != "":
		r.EnvEvidence = EvidenceLive
		r.EnvNote = fmt.Sprintf("the worker's environment block cannot be read (%s) and no exec-time evidence was captured", live.Unreadable)
		if stale != nil {
			r.EnvNote = fmt.Sprintf("the worker's environment block cannot be read (%s); %v", live.Unreadable, stale)
		}
	default:
		r.EnvEvidence = EvidenceLive
	}
	for _, n := range names {
		digest, present, val := lookup(n)
		ec := EnvCheck{Name: n, Present: present, Digest: digest}
		if present && v.ShowValues && val != nil {
			ec.Value = val
		}
		empty := present && digest == v.State.Digest(n, "")
		required := slices.Contains(x.Require, n)
		wantDigest, hasDigest := x.want(v.State, n)
		if hasDigest {
			// Compared with a known value: matches says how it went (an
			// absent name differs from it). Without one, only presence
			// was checked and matches stays null.
			ec.Matches = ptr(present && digest == wantDigest)
		}
		about := Subject{Var: n, Pid: worker}
		switch {
		case !present && (required || hasDigest) && ev == nil && live.Rewritten != "":
			if stale != nil {
				r.AddAbout(KindEnvUnreadable, about, stale, "%s cannot be read on the worker (pid %d): it rewrote its environment block after its exec (%s), and %v", n, worker, live.Rewritten, stale)
			} else {
				r.AddAbout(KindEnvUnreadable, about, nil, "%s cannot be read on the worker (pid %d): it rewrote its environment block after its exec (%s), and no exec-time evidence was captured", n, worker, live.Rewritten)
			}
		case !present && (required || hasDigest) && ev == nil && live.Unreadable != "":
			if stale != nil {
				r.AddAbout(KindEnvUnreadable, about, stale, "%s cannot be read on the worker (pid %d): %s, and %v", n, worker, live.Unreadable, stale)
			} else {
				var gone error
				if live.Exiting {
					gone = fmt.Errorf("pid %d: %w", worker, proc.ErrGone)
				}
				r.AddAbout(KindEnvUnreadable, about, gone, "%s cannot be read on the worker (pid %d): %s, and no exec-time evidence was captured", n, worker, live.Unreadable)
			}
		case !present && (required || hasDigest):
			r.AddAbout(KindEnvMissing, about, nil, "%s is not set on the worker (pid %d)", n, worker)
		case required && empty:
			r.AddAbout(KindEnvMissing, about, nil, "%s is empty on the worker (pid %d)", n, worker)
		case hasDigest && ec.Digest != wantDigest:
			r.AddAbout(KindEnvMismatch, about, nil, "%s on the worker (pid %d) differs from the %s (digest %s, want %s)", n, worker, x.what(n), ShortDigest(ec.Digest), ShortDigest(wantDigest))
		}
		r.Env = append(r.Env, ec)
	}
}

// CheckPorts checks every declared port of c on worker, looking for the
// holders in tree first, and adds what it finds to r; it reports whether
// the worker owns all of them.
func (v *Verifier) CheckPorts(r *Report, c Check, worker int, tree []int) bool {
	return v.checkPorts(r, c, worker, tree, nil)
}

// CheckPortsIn is CheckPorts within look k (nil: CheckPorts): a look of
// its own begun with Again, for one.
func (v *Verifier) CheckPortsIn(r *Report, c Check, worker int, tree []int, k *Look) bool {
	return v.checkPorts(r, c, worker, tree, k)
}

// checkPorts is CheckPorts within look k (nil: a look of its own).
func (v *Verifier) checkPorts(r *Report, c Check, worker int, tree []int, k *Look) bool {
	all := true
	for _, pt := range c.Ports {
		pc := PortCheck{Number: pt.Number, Address: pt.PortAddress()}
		if c.AnyAddress {
			pc.Address = ""
		}
		hs, err := holders(v.Proc, k, pt.Number, tree)
		if err != nil {
			r.Add(KindPortNotOwned, "port %d: %v", pt.Number, err)
			all = false
			r.Ports = append(r.Ports, pc)
			continue
		}
		if len(hs) == 0 {
			r.Add(KindPortNotOwned, "nothing listens on port %d", pt.Number)
		}
		declared, _ := netip.ParseAddr(pt.PortAddress())
		for _, h := range hs {
			holder := worker
			if c.AnyMember && h.InTree && len(h.Pids) > 0 && !slices.Contains(h.Pids, worker) {
				holder = h.Pids[0]
			}
			role, listed := c.Owners[pt.Number]
			if c.Owners != nil && h.InTree && len(h.Pids) > 0 {
				holder = h.Pids[0] // a port no role lists: any member
				if listed {
					holder = 0
					if i := slices.IndexFunc(h.Pids, func(pid int) bool { return slices.Contains(role.Pids, pid) }); i >= 0 {
						holder = h.Pids[i]
					}
				}
			}
			if slices.Contains(h.Pids, holder) {
				pc.Owned = true
				pc.OwnerPid = holder
				if c.AnyAddress {
					pc.Address = h.Addr.Addr().Unmap().String()
				} else if !h.listener().Matches(declared) {
					// The port line says where it listens, not where it should.
					pc.Address = h.Addr.Addr().Unmap().String()
					who := fmt.Sprintf("the worker (pid %d)", worker)
					if listed && holder != worker {
						who = fmt.Sprintf("pid %d of worker %q", holder, role.Role)
					} else if holder != worker {
						who = fmt.Sprintf("pid %d of the job", holder)
					}
					r.Problems = append(r.Problems, bindProblem(fmt.Sprintf("%s listens on %s, declared %s", who, h.Addr, netip.AddrPortFrom(declared, uint16(pt.Number))), h.Addr))
				}
				continue
			}
			if pc.OwnerPid == 0 && len(h.Pids) > 0 {
				pc.OwnerPid = h.Pids[0]
			}
			if h.InTree && listed {
				r.Add(KindPortNotOwned, "%s is held by another member of the launched tree, not by a process of worker %q (pids %v): %s", h.Addr, role.Role, role.Pids, h.Census(v.Proc))
			} else if h.InTree {
				r.Add(KindPortNotOwned, "%s is held by another member of the launched tree, not the worker (pid %d): %s", h.Addr, worker, h.Census(v.Proc))
			} else {
				r.Add(KindPortForeign, "%s", h.Census(v.Proc))
			}
		}
		if !pc.Owned {
			all = false
		}
		r.Ports = append(r.Ports, pc)
	}
	if len(r.Ports) > 0 {
		p := r.Ports[0]
		r.Port = &p
	}
	return all
}

func ptr[T any](v T) *T { return &v }

// bindProblem is the KindBindAddress problem msg of a listener on a; on
// every interface, it adds what is known of one (an AnyAddressNote).
func bindProblem(msg string, a netip.AddrPort) Problem {
	p := Problem{Kind: KindBindAddress, Message: msg}
	if a.Addr().IsUnspecified() {
		n := &AnyAddressNote{Base: msg}
		p.Message, p.Note = n.Say(GoAnyAddress), n
	}
	return p
}

// AnyAddressNote is the Note of a KindBindAddress problem whose listener
// is on every interface where one address was declared: torchrun's
// agent, for one, binds its rendezvous port on [::] whatever
// --master_addr says. The problem's Message is Say(GoAnyAddress); a
// caller that names the launch's fields its own way words the remedy with
// Say. It is safe for concurrent use while no one changes its fields.
type AnyAddressNote struct {
	// Base is what listens where, and what was declared.
	Base string
}

// GoAnyAddress is the remedy of an AnyAddressNote in a Go-built launch's
// fields.
const GoAnyAddress = `declare Address: "::" with AllowAllInterfaces: true`

// Say is the problem's message with remedy, what declares the port on
// every interface: Base, then Tail(remedy).
func (n *AnyAddressNote) Say(remedy string) string { return n.Base + n.Tail(remedy) }

// Tail is what Say adds to Base: what is known of such a listener, and
// remedy.
func (n *AnyAddressNote) Tail(remedy string) string {
	return " (a launcher's rendezvous port, torchrun's agent for one, is bound on every interface whatever its --master_addr says: " + remedy + " for it)"
}
