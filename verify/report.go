package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strings"

	"github.com/childproof/childproof/outcome"
)

// Report is the evidence of one run or verify; its JSON form is the
// documented output of run and verify (docs/launcher.md). Its groups are
// embedded, so the JSON is one flat object, keys in this order. A Report
// is not safe for concurrent use while it is being built (Add, SetOutcome).
type Report struct {
	Name     string `json:"name"`
	Verified bool   `json:"verified"`
	// ExitCode is Outcome's code (outcome.Kind.Code): set both with
	// SetOutcome.
	ExitCode int `json:"exit_code"`
	// Outcome is how the run or verify ended (not in the JSON: its
	// exit_code is).
	Outcome outcome.Kind `json:"-"`
	Worker  *WorkerInfo  `json:"worker"`
	Chain   []ChainEntry `json:"chain"`
	Env     []EnvCheck   `json:"env"`
	PortChecks
	Ready    bool      `json:"ready"`
	Attempts int       `json:"attempts"`
	Problems []Problem `json:"problems"`
	EnvSource
	// Workers are the job's workers when it runs several (worker {
	// count = N }): each with its own env checks, Worker's first.
	Workers []WorkerCheck `json:"workers,omitempty"`
	// Members are the verdicts on the tree's other exec'd members
	// (Verifier.JudgeTree): each judged by its own evidence.
	Members []MemberCheck `json:"members,omitempty"`
	// Notes say what the check noticed that is no failure (several
	// processes matching the selector equally).
	Notes []string `json:"notes,omitempty"`
	TreeOutput
}

// WorkerCheck is one worker of a multi-process job and its env checks. It
// is plain data, safe for concurrent use while no one changes it.
type WorkerCheck struct {
	// Role is the worker role that selected it ("": the unlabelled
	// worker block).
	Role string `json:"role,omitempty"`
	WorkerInfo
	Env []EnvCheck `json:"env"`
	EnvSource
}

// PortChecks are the checks of a report's declared ports. They are plain
// data, safe for concurrent use while no one changes them.
type PortChecks struct {
	// Port is the first declared port's check (null without a port).
	Port *PortCheck `json:"port"`
	// Ports holds every declared port's check, in declaration order.
	Ports []PortCheck `json:"ports"`
}

// EnvSource says which environment block a report's env checks read. It is
// plain data, safe for concurrent use while no one changes it.
type EnvSource struct {
	// EnvEvidence is EvidenceExec (the block captured at the worker's
	// exec) or EvidenceLive (its /proc/PID/environ now); empty when no
	// variable was checked.
	EnvEvidence string `json:"env_evidence,omitempty"`
	// EnvNote explains the evidence when it is not the plain live block.
	EnvNote string `json:"env_note,omitempty"`
}

// TreeOutput is what the launched tree printed (run only; not in the
// JSON) and the signals it received while childproof watched its start. It
// is plain data, safe for concurrent use while no one changes it.
type TreeOutput struct {
	// Log is the path of the tree's log.
	Log string `json:"-"`
	// Tail holds the last lines the tree printed when it exited early.
	Tail []string `json:"-"`
	// Signals are the signals delivered to the tree before the worker was
	// ready (an exit-5 report only).
	Signals []Signal `json:"signals,omitempty"`
}

// Env evidence sources (Report.EnvEvidence).
const (
	EvidenceExec = "exec"
	EvidenceLive = "live"
)

// WorkerInfo identifies the worker in a report. It is plain data, safe for
// concurrent use while no one changes it.
type WorkerInfo struct {
	Pid       int    `json:"pid"`
	Comm      string `json:"comm"`
	Exe       string `json:"exe"`
	StartTime uint64 `json:"start_time"`
	UID       int    `json:"uid"`
}

// ChainEntry is one process from the launch root down to the worker's
// parent. It is plain data, safe for concurrent use while no one changes
// it.
type ChainEntry struct {
	Pid  int      `json:"pid"`
	Comm string   `json:"comm"`
	Argv []string `json:"argv"`
}

// EnvCheck is one checked variable on the worker. Value is set only when
// the caller asked to show values. Matches is true only when the worker's
// value was compared with a known value (the one childproof passed, or
// the one a check names) and is equal, false when it differs, nil (JSON
// null) when no value was known and only presence was checked. It is plain
// data, safe for concurrent use while no one changes it.
type EnvCheck struct {
	Name    string  `json:"name"`
	Present bool    `json:"present"`
	Matches *bool   `json:"matches"`
	Digest  string  `json:"digest"`
	Value   *string `json:"value,omitempty"`
}

// PortCheck is one checked port. It is plain data, safe for concurrent use
// while no one changes it.
type PortCheck struct {
	Number   int    `json:"number"`
	Address  string `json:"address"`
	OwnerPid int    `json:"owner_pid"`
	Owned    bool   `json:"owned"`
}

// Problem is one failed check. It is plain data, safe for concurrent use
// while no one changes it.
type Problem struct {
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
	// Subject is what the failed check was about, for a caller that acts
	// on it (not in the JSON); its zero value: the launch as a whole.
	Subject Subject `json:"-"`
	// Err is the error that made the check fail when one did
	// (proc.ErrGone: the worker exited while it was read;
	// ErrStaleExecEvidence); nil when the evidence itself failed it.
	Err error `json:"-"`
	// Note is the problem as data, for a caller that words it in its
	// own terms (a *relaunch.DeltaNote); nil: Message says it all. Not
	// in the JSON.
	Note any `json:"-"`
}

// Subject is what a Problem is about; a zero field does not apply. It is
// plain data, safe for concurrent use while no one changes it.
type Subject struct {
	// Var is the environment variable checked.
	Var string
	// Port is the declared port checked.
	Port int
	// Pid is the process the check read (the worker, a rank, a holder).
	Pid int
}

// Kind is what a Problem is about. Its string is stable: it is the "kind"
// of the JSON output, and scripts match on it.
type Kind string

// The problem kinds.
const (
	// KindEnvMissing: a required or overridden variable is not set or
	// empty on the worker, or its environ cannot be read.
	KindEnvMissing Kind = "env-missing"
	// KindEnvMismatch: a variable on the worker has another value than
	// the launch gave it (compared as keyed digests).
	KindEnvMismatch Kind = "env-mismatch"
	// KindPortNotOwned: nothing listens on a declared port, or another
	// process of the launched tree holds it, not the worker.
	KindPortNotOwned Kind = "port-not-owned"
	// KindPortForeign: a process childproof did not start (or cannot see)
	// holds a declared port.
	KindPortForeign Kind = "port-foreign"
	// KindBindAddress: the worker listens on another address than the
	// declared one.
	KindBindAddress Kind = "bind-address"
	// KindWrapper: a forbidden wrapper (a login or interactive shell, an
	// environment reset) is in the live chain from the root to the worker.
	KindWrapper Kind = "wrapper"
	// KindUser: the worker does not run as the spec's user or group.
	KindUser Kind = "user"
	// KindExited: the worker exited, or never appeared.
	KindExited Kind = "exited"
	// KindNotReady: the worker did not answer its readiness probe in time.
	KindNotReady Kind = "not-ready"
	// KindDelta: a relaunch's environment changed in other names than
	// the declared ones, or a declared one did not change.
	KindDelta Kind = "delta"
	// KindEnvUnreadable: the worker rewrote its environment block (or it
	// reads empty while its environment area is not) and no exec-time
	// evidence exists, so a name cannot be judged.
	KindEnvUnreadable Kind = "env-unreadable"
	// KindUntrustedRecord: a state-dir record fails authentication; it
	// is reported and never acted on.
	KindUntrustedRecord Kind = "untrusted-record"
	// KindInterrupted: the caller interrupted the launch (Ctrl-C, SIGTERM)
	// before its worker was verified; what it had started is stopped.
	KindInterrupted Kind = "interrupted"
)

// NewReport returns an empty report of launch name (every list empty, not
// nil: the JSON form has [] rather than null).
func NewReport(name string) *Report {
	return &Report{Name: name, Chain: []ChainEntry{}, Env: []EnvCheck{}, PortChecks: PortChecks{Ports: []PortCheck{}}, Problems: []Problem{}}
}

// Add appends a problem of kind with a formatted message.
func (r *Report) Add(kind Kind, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{Kind: kind, Message: fmt.Sprintf(format, args...)})
}

// WorkerCheck is r's worker, its env checks and their evidence, as a
// Report.Workers entry of role ("": the unlabelled worker block).
func (r *Report) WorkerCheck(role string) WorkerCheck {
	wc := WorkerCheck{Role: role, Env: r.Env, EnvSource: r.EnvSource}
	if r.Worker != nil {
		wc.WorkerInfo = *r.Worker
	}
	return wc
}

// AddWorker adds rr, the report of another worker of r's job, to r: its
// Workers entry of role, and its problems named by place (WorkerPlace).
func (r *Report) AddWorker(rr *Report, role, place string) {
	r.Workers = append(r.Workers, rr.WorkerCheck(role))
	r.AddProblemsOf(rr, place)
}

// AddProblemsOf adds rr's problems to r, each message after place
// ("worker 2/4: …").
func (r *Report) AddProblemsOf(rr *Report, place string) {
	for _, p := range rr.Problems {
		r.AddAbout(p.Kind, p.Subject, p.Err, "%s: %s", place, p.Message)
	}
}

// WorkerPlace names the i-th (from 0) of a job's n workers in a problem:
// its role (worker "engine"), else its place (worker 2/4).
func WorkerPlace(role string, i, n int) string {
	if role != "" {
		return fmt.Sprintf("worker %q", role)
	}
	return fmt.Sprintf("worker %d/%d", i+1, n)
}

// AddAbout is Add for a problem about subject, caused by err (nil: by
// the evidence itself).
func (r *Report) AddAbout(kind Kind, subject Subject, err error, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{Kind: kind, Message: fmt.Sprintf(format, args...), Subject: subject, Err: err})
}

// Caused reports whether a problem of r of one of kinds was caused by
// target (errors.Is).
func (r *Report) Caused(target error, kinds ...Kind) bool {
	for _, p := range r.Problems {
		if slices.Contains(kinds, p.Kind) && errors.Is(p.Err, target) {
			return true
		}
	}
	return false
}

// Has reports whether r has a problem of one of kinds.
func (r *Report) Has(kinds ...Kind) bool {
	for _, p := range r.Problems {
		for _, k := range kinds {
			if p.Kind == k {
				return true
			}
		}
	}
	return false
}

// Judged is the outcome r's problems call for: OK without one.
func (r *Report) Judged() outcome.Kind {
	switch {
	case len(r.Problems) == 0:
		return outcome.OK
	case r.Has(KindInterrupted):
		return outcome.Interrupted
	case r.Has(KindExited):
		return outcome.Exited
	case r.Has(KindPortForeign):
		return outcome.Foreign
	case r.Has(KindEnvMissing, KindEnvMismatch, KindEnvDiverged, KindEnvUnreadable, KindPortNotOwned, KindBindAddress, KindWrapper, KindUser, KindDelta):
		return outcome.Unproven
	case r.Has(KindNotReady):
		return outcome.Exited
	}
	return outcome.Unproven
}

// SetOutcome sets r's Outcome to k and its ExitCode to k's code.
func (r *Report) SetOutcome(k outcome.Kind) {
	r.Outcome, r.ExitCode = k, k.Code()
}

// WriteText writes the human form of r in one Write. A foreground run's
// console also gets the worker's lines, whole, from another goroutine as
// the worker prints them. A report written in pieces could have one of
// them land inside its first line ("verified murl: …").
func (r *Report) WriteText(w io.Writer) {
	var b bytes.Buffer
	r.writeText(&b)
	w.Write(b.Bytes())
}

func (r *Report) writeText(w io.Writer) {
	switch {
	case r.Verified:
		fmt.Fprintf(w, "verified %s", r.Name)
	case r.Worker == nil && r.Has(KindPortForeign):
		// Who holds it (a stranger, our own previous launch) is the
		// problem line's to say.
		fmt.Fprintf(w, "NOT started %s: a declared port is already held\n", r.Name)
	default:
		fmt.Fprintf(w, "NOT verified %s", r.Name)
	}
	if r.Worker != nil {
		fmt.Fprintf(w, ": worker pid %d (%s) uid %d %s\n", r.Worker.Pid, r.Worker.Comm, r.Worker.UID, r.Worker.Exe)
	} else if r.Verified || !r.Has(KindPortForeign) {
		fmt.Fprintln(w, ": no worker")
	}
	if len(r.Chain) > 0 {
		var parts []string
		for _, c := range r.Chain {
			parts = append(parts, fmt.Sprintf("%d %s", c.Pid, strings.Join(c.Argv, " ")))
		}
		if r.Worker != nil {
			parts = append(parts, fmt.Sprintf("%d %s", r.Worker.Pid, r.Worker.Comm))
		}
		fmt.Fprintf(w, "  chain:   %s\n", strings.Join(parts, " -> "))
	}
	// With a rewritten block and no evidence of it, an absent name is
	// unreadable, not missing (KindEnvUnreadable).
	absent := "missing"
	if r.Has(KindEnvUnreadable) {
		absent = "unreadable"
	}
	for _, e := range r.Env {
		state := e.state(absent)
		if e.Present && slices.ContainsFunc(r.Problems, func(p Problem) bool { return p.Kind == KindEnvMissing && p.Subject.Var == e.Name }) {
			// Required and empty: never "present, matches" beside "is empty".
			state = "present, EMPTY (required non-empty)"
		}
		val := e.Digest
		if e.Value != nil {
			val = fmt.Sprintf("%q", *e.Value)
		}
		if val == "" {
			fmt.Fprintf(w, "  env:     %s %s\n", e.Name, state)
		} else {
			fmt.Fprintf(w, "  env:     %s %s (%s)\n", e.Name, state, ShortDigest(val))
		}
	}
	if r.EnvNote != "" {
		fmt.Fprintf(w, "  evidence: %s\n", r.EnvNote)
	}
	if len(r.Workers) > 1 {
		for i, wk := range r.Workers {
			var parts []string
			for _, e := range wk.Env {
				parts = append(parts, e.Name+" "+e.state(absent))
			}
			if len(parts) == 0 {
				parts = append(parts, "no variable checked")
			}
			if wk.Role != "" {
				fmt.Fprintf(w, "  worker %q: pid %d (%s): %s\n", wk.Role, wk.Pid, wk.Comm, strings.Join(parts, ", "))
				continue
			}
			fmt.Fprintf(w, "  worker %d/%d: pid %d (%s): %s\n", i+1, len(r.Workers), wk.Pid, wk.Comm, strings.Join(parts, ", "))
		}
	}
	for _, m := range r.Members {
		if len(m.Diverged) > 0 {
			fmt.Fprintf(w, "  member:  pid %d (%s): %s DIFFERS (%s evidence)\n", m.Pid, m.Comm, strings.Join(m.Diverged, ", "), m.Evidence)
		}
	}
	for _, p := range r.Ports {
		// verify --pid checks no address: a port nothing listens on has none.
		where := fmt.Sprintf("%s:%d", p.Address, p.Number)
		if a, err := netip.ParseAddr(p.Address); err == nil {
			where = netip.AddrPortFrom(a, uint16(p.Number)).String() // [::]:P
		}
		if p.Address == "" {
			where = fmt.Sprintf("port %d", p.Number)
		}
		if p.Owned {
			fmt.Fprintf(w, "  port:    %s owned by the worker (pid %d)\n", where, p.OwnerPid)
		} else if p.OwnerPid != 0 {
			fmt.Fprintf(w, "  port:    %s NOT owned by the worker (holder pid %d)\n", where, p.OwnerPid)
		} else {
			fmt.Fprintf(w, "  port:    %s NOT owned by the worker\n", where)
		}
	}
	ready := "no"
	if r.Ready {
		ready = "yes"
	}
	fmt.Fprintf(w, "  ready:   %s (attempt %d)\n", ready, max(r.Attempts, 1))
	if r.Log != "" {
		fmt.Fprintf(w, "  log:     %s\n", r.Log)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note:    %s\n", n)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  problem: %s: %s\n", p.Kind, p.Message)
	}
	for _, s := range r.Signals {
		fmt.Fprintf(w, "  signal:  %s, to pid %d\n", s, s.ToPid)
	}
	if len(r.Tail) > 0 {
		fmt.Fprintf(w, "  last lines it printed:\n")
		for _, l := range r.Tail {
			fmt.Fprintf(w, "    | %s\n", l)
		}
	}
}

// state is e's state in the text report; absent is what an absent name is
// ("missing", or "unreadable" where the block could not be judged).
func (e EnvCheck) state(absent string) string {
	switch {
	case e.Present && e.Matches == nil:
		return "present"
	case e.Present && *e.Matches:
		return "present, matches"
	case e.Present:
		return "present, DIFFERS"
	}
	return absent
}

// Failure says why r is not verified, as every command's error line says
// it: "verification failed on the worker: " and its first problem's
// message ("in the launched tree" instead of "on the worker" when that
// problem is env-diverged). It is "verification failed" when r has no
// problem, and "" when r is verified.
func (r *Report) Failure() string {
	switch {
	case r.Verified:
		return ""
	case len(r.Problems) == 0:
		return "verification failed"
	}
	if r.Problems[0].Kind == KindEnvDiverged {
		return "verification failed in the launched tree: " + r.Problems[0].Message
	}
	return "verification failed on the worker: " + r.Problems[0].Message
}

// ShortDigest is the form of a keyed digest that text output shows: a
// digest "hmac-sha256:HEX" cut after 16 hex digits and ended with "…".
// Any other string, or a digest that short already, is returned as it is.
func ShortDigest(d string) string {
	if strings.HasPrefix(d, "hmac-sha256:") && len(d) > len("hmac-sha256:")+16 {
		return d[:len("hmac-sha256:")+16] + "…"
	}
	return d
}

// EmptyAsGiven names a required variable that is empty on the worker with
// the value childproof gave it (its digest matches): nothing in between
// changed it, so a hint blaming a wrapper would mislead. "" if none.
func (r *Report) EmptyAsGiven() string {
	for _, p := range r.Problems {
		if p.Kind != KindEnvMissing || p.Subject.Var == "" {
			continue
		}
		for _, e := range r.Env {
			if e.Name == p.Subject.Var && e.Present && e.Matches != nil && *e.Matches {
				return e.Name
			}
		}
	}
	return ""
}
