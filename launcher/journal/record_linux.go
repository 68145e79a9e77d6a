package journal

import (
	"os"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Launch is what a launch's record is built from: plain values the launch
// holds. It is plain data, safe for concurrent use while no one changes
// it.
type Launch struct {
	// Spec is the launch spec; Secrets the launch's secret set, which
	// masks what the record keeps.
	Spec    *spec.Launch
	Secrets *redact.Set
	// SpecHash, Detach and Vars (NAME=VALUE) are the launch's options.
	SpecHash string
	Detach   bool
	Vars     []string
	// Dir is the launch's working directory; Log its log file.
	Dir, Log string
	// Round is the number of the launch's round (0: none).
	Round int
	// Pgid, Cgroup and Marker find the launched tree.
	Pgid           int
	Cgroup, Marker string
	// Relay is the pid of the log relay process (0: none).
	Relay int
	// Proc reads /proc.
	Proc proc.FS
}

// New is the record of the launch l with argv, root as its launch root
// and worker as its worker: a provisional one (pending) stands until the
// worker is verified.
func New(st *statedir.Store, l Launch, argv []string, root, worker verify.Fingerprint, pending bool) *statedir.Record {
	secrets := l.Secrets
	rec := &statedir.Record{
		Name:     l.Spec.Name,
		SpecPath: l.Spec.SpecPath, SpecHash: l.SpecHash, Argv: secrets.Argv(argv), Dir: secrets.Text(l.Dir),
		Started: time.Now().UTC(), Detached: l.Detach,
		Root: mask.Exe(secrets, root), Worker: mask.Exe(secrets, worker), Pgid: l.Pgid, Cgroup: l.Cgroup, Marker: l.Marker,
		Env: map[string]string{}, WorkerEnv: map[string]string{},
		Log:     l.Log,
		Pending: pending,
		Round:   l.Round,
	}
	rec.Vars = recordVars(st, l.Vars, secrets)
	rec.Oneshot = l.Spec.Oneshot
	if l.Spec.Stop.Signal != "" {
		rec.StopSignal = l.Spec.Stop.Signal
	}
	if l.Spec.Stop.Timeout > 0 {
		rec.StopTimeout = l.Spec.Stop.Timeout.String()
	}
	if !l.Detach {
		rec.Supervisor = os.Getpid()
	}
	rec.Secrets = st.SecretDigests(secrets)
	if l.Relay != 0 {
		if fp, err := verify.TakeFingerprint(l.Proc, l.Relay); err == nil {
			fp = mask.Exe(secrets, fp)
			rec.Relay = &fp
		}
	}
	for _, pt := range l.Spec.Ports {
		rec.Ports = append(rec.Ports, statedir.RecordPort{Number: pt.Number, Address: pt.PortAddress()})
	}
	rec.Selector = statedir.SelectorOf(l.Spec, secrets)
	return rec
}

// recordVars are the launch's --var values (vars, NAME=VALUE) as the
// record keeps them: a value that holds a secret of the launch (secrets
// masks it) by its digest only; the last of a name given twice wins.
func recordVars(st *statedir.Store, vars []string, secrets *redact.Set) []statedir.RecordVar {
	var out []statedir.RecordVar
	for _, kv := range vars {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		out = slices.DeleteFunc(out, func(r statedir.RecordVar) bool { return r.Name == k })
		if secrets.Text(v) != v {
			out = append(out, statedir.RecordVar{Name: k, Digest: st.Digest("var."+k, v)})
			continue
		}
		out = append(out, statedir.RecordVar{Name: k, Value: v})
	}
	return out
}

// Worker is what a verified launch's record adds to New's: plain values
// the launch holds. It is plain data, safe for concurrent use while no
// one changes it.
type Worker struct {
	// Pid is the verified worker's.
	Pid int
	// Overrides, Given and Vars are the launch's resolved environment
	// (launchenv.Env's fields of those names).
	Overrides, Given, Vars map[string]string
	// Exec is the worker's environment captured at its exec (nil: none;
	// its live block is read instead).
	Exec *verify.ExecEnv
	// Ranks are the workers of a multi-process job, the worker's first.
	Ranks []Rank
	// Members are the judged members whose exec the tracer captured.
	Members []Member
}

// Rank is one worker of a multi-process job as a launch holds it. It is
// plain data, safe for concurrent use while no one changes it.
type Rank struct {
	// Role is the worker role that selected it ("": the unlabelled
	// worker block).
	Role string
	// FP is its fingerprint when it was picked.
	FP verify.Fingerprint
	// Exec is its environment captured at its exec (nil: none).
	Exec *verify.ExecEnv
}

// Member is one judged member of the tree and its environment captured
// at its exec. It is plain data, safe for concurrent use while no one
// changes it.
type Member struct {
	Pid  int
	Exec verify.ExecEnv
}

// Verified fills rec, the record New built for the verified worker, with
// digests of the overrides and of the worker's whole environ, never
// values, and the records of its ranks and members.
func Verified(st *statedir.Store, l Launch, rec *statedir.Record, w Worker) {
	for _, n := range l.Spec.Protected() {
		if v, ok := w.Overrides[n]; ok {
			rec.Env[n] = st.Digest(n, v)
		} else {
			rec.Env[n] = ""
		}
	}
	for n, v := range w.Overrides {
		rec.Env[n] = st.Digest(n, v)
	}
	for n := range w.Given {
		if rec.Given == nil {
			rec.Given = map[string]string{}
		}
		rec.Given[n] = st.Digest(n, w.Vars[n])
	}
	// The worker's environment: the block captured at its exec where
	// there is one (its live block may be a process title by now).
	var vars []proc.Var
	if w.Exec != nil {
		vars = w.Exec.Vars
		rec.ExecExe, rec.ExecArea = l.Secrets.Text(w.Exec.Exe), w.Exec.Area
		rec.ExecEnv = map[string]string{}
	} else if live, err := l.Proc.EnvironAfterExec(w.Pid); err == nil {
		vars = live
	}
	for _, v := range vars {
		if v.Name == proctree.MarkerVar {
			// childproof's own marker, new at every launch: in the
			// record's Marker, not the launch's environment.
			continue
		}
		if _, seen := rec.WorkerEnv[v.Name]; !seen {
			rec.WorkerEnv[v.Name] = st.Digest(v.Name, v.Value)
			if rec.ExecEnv != nil {
				rec.ExecEnv[v.Name] = rec.WorkerEnv[v.Name]
			}
		}
	}
	for _, rk := range w.Ranks {
		rec.Ranks = append(rec.Ranks, RankOf(st, l.Secrets, l.Proc, rk))
	}
	if len(rec.Ranks) > 0 {
		// The first rank is the worker: the same evidence.
		rec.Ranks[0].WorkerEnv, rec.Ranks[0].ExecEnv = rec.WorkerEnv, rec.ExecEnv
		rec.Ranks[0].ExecExe, rec.Ranks[0].ExecArea = rec.ExecExe, rec.ExecArea
	}
	rec.Members = recordMembers(st, l, w.Members)
}

// RankOf is the record of one rank: its fingerprint and exe masked by
// secrets, its environment's digests, from the block captured at its
// exec where there is one, else its live block read through p.
func RankOf(st *statedir.Store, secrets *redact.Set, p proc.FS, rk Rank) statedir.RecordRank {
	out := statedir.RecordRank{Role: rk.Role, Worker: mask.Exe(secrets, rk.FP), WorkerEnv: map[string]string{}}
	if fp, err := verify.TakeFingerprint(p, rk.FP.Pid); err == nil && rk.FP.Matches(fp) {
		out.Worker = mask.Exe(secrets, fp)
	}
	var vars []proc.Var
	if rk.Exec != nil {
		vars = rk.Exec.Vars
		out.ExecExe, out.ExecArea = secrets.Text(rk.Exec.Exe), rk.Exec.Area
		out.ExecEnv = map[string]string{}
	} else if live, err := p.EnvironAfterExec(rk.FP.Pid); err == nil {
		vars = live
	}
	for _, v := range vars {
		if _, seen := out.WorkerEnv[v.Name]; !seen {
			out.WorkerEnv[v.Name] = st.Digest(v.Name, v.Value)
			if out.ExecEnv != nil {
				out.ExecEnv[v.Name] = out.WorkerEnv[v.Name]
			}
		}
	}
	return out
}

// recordMembers is the record of the members: the digests of the
// protected names their exec received.
func recordMembers(st *statedir.Store, l Launch, members []Member) []statedir.RecordMember {
	var out []statedir.RecordMember
	for _, m := range members {
		s, err := l.Proc.Stat(m.Pid)
		if err != nil {
			continue
		}
		rm := statedir.RecordMember{Pid: m.Pid, StartTime: s.StartTime, ExecEnv: map[string]string{}, ExecExe: l.Secrets.Text(m.Exec.Exe), ExecArea: m.Exec.Area}
		for _, n := range l.Spec.Protected() {
			if v, ok := proc.Lookup(m.Exec.Vars, n); ok {
				rm.ExecEnv[n] = st.Digest(n, v)
			}
		}
		out = append(out, rm)
	}
	return out
}
