package statedir

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/childproof/childproof/verify"
)

// Round is one crash-fix round of a launch: every run and relaunch of a
// name is one, numbered from 1. It is kept in the state dir's history
// (history/NAME/NNNNNN.json, mode 0600), written atomically, and never
// holds a secret value: a non-secret --set value is the one value it keeps,
// so that the round can be replayed. It is plain data, safe for
// concurrent use while no one changes it; Redacted changes nothing.
type Round struct {
	N    int    `json:"round"`
	Name string `json:"name"`

	// How the round came about: the command, when, from which spec, and
	// what it is measured against or replays.
	//
	// Command is what the round came from (CommandRun, CommandRelaunch…,
	// or what a Go caller named in Provenance.Command).
	Command  Command   `json:"command"`
	Started  time.Time `json:"started"`
	SpecHash string    `json:"spec_hash,omitempty"`
	// Baseline is the round whose worker this round's delta is measured
	// against (0: none, a first run).
	Baseline int `json:"baseline,omitempty"`
	// ReplayOf is N of relaunch --round N.
	ReplayOf int `json:"replay_of,omitempty"`

	// Delta is what this round changed: its --set and --set-secret
	// overrides and its --unset names.
	Delta RoundDelta `json:"delta"`
	// Overrides are the --set overrides in effect, carried forward from
	// earlier rounds or set by this one, sorted by name.
	Overrides []Override `json:"overrides"`

	// What the round's launch came to. Outcome is "" only in a round not
	// yet written.
	Outcome RoundOutcome `json:"outcome"`
	// Problems are the problem kinds of a failed or refused round.
	Problems []verify.Kind `json:"problems,omitempty"`
	// ExitCode is the launch's exit code (0: verified).
	ExitCode int `json:"exit_code"`
	// Signals are the signals the tree received before its worker was
	// ready, with their senders (a failed round's exit-5 report).
	Signals []verify.Signal `json:"signals,omitempty"`

	// The round's worker: who it was, its environment as digests, its
	// kept log and how it ended.
	Worker *verify.Fingerprint `json:"worker,omitempty"`
	// WorkerEnv maps every name in the verified worker's environ to its
	// keyed digest (history --diff compares them).
	WorkerEnv map[string]string `json:"worker_env,omitempty"`
	// Volatile is the spec's volatile list at this round (history --diff
	// shows those names, and schema.BuiltinVolatile, as volatile).
	Volatile []string `json:"volatile,omitempty"`
	// Log is the kept log file of the round (a hard link to the log the
	// tree wrote), empty when none was kept.
	Log string `json:"log,omitempty"`
	// End says how the worker ended, once that is known.
	End *RoundEnd `json:"end,omitempty"`

	// MAC authenticates the round file as Record.MAC does a record: a
	// round that fails is never replayed or carried forward.
	MAC string `json:"mac,omitempty"`
}

// RoundOutcome is what a round's launch came to (Round.Outcome; its
// string is the JSON and history's text).
type RoundOutcome string

// The round outcomes.
const (
	// RoundLaunching: childproof died mid-launch, or still is launching.
	RoundLaunching RoundOutcome = "launching"
	RoundVerified  RoundOutcome = "verified"
	RoundFailed    RoundOutcome = "failed"
	// RoundRefused: verified, then refused because of an unexpected delta.
	RoundRefused RoundOutcome = "refused"
	// RoundInterrupted: a round still launching while no launch of the
	// name is under way, or followed by another round, was cut short
	// (State.History says so; the file keeps RoundLaunching).
	RoundInterrupted RoundOutcome = "interrupted"
)

// EndHow is how a round's worker ended (RoundEnd.How).
type EndHow string

// The ways a worker ends.
const (
	EndExited   EndHow = "exited"
	EndSignaled EndHow = "signaled"
	// EndStopped: childproof stopped it and did not see its status.
	EndStopped EndHow = "stopped"
	// EndGone: found gone; nobody saw its status (a detached launch, or a
	// supervisor that died).
	EndGone EndHow = "gone"
)

// EndSeen is who saw a round's end (RoundEnd.Seen).
type EndSeen string

// Who sees an end.
const (
	// SeenSupervisor: run or relaunch in the foreground, with the exit
	// status.
	SeenSupervisor EndSeen = "supervisor"
	// SeenLaunch: it ended before it was verified.
	SeenLaunch EndSeen = "launch"
	// SeenStop: childproof stopped it.
	SeenStop EndSeen = "stop"
	// SeenCensus: a later command found it gone.
	SeenCensus EndSeen = "census"
)

// Override is one --set override of a round. It is plain data, safe for
// concurrent use while no one changes it.
type Override struct {
	Name string `json:"name"`
	// Value is kept only when the value is not secret.
	Value *string `json:"value,omitempty"`
	// Digest is the keyed digest of the value, secret or not.
	Digest string `json:"digest"`
	// Secret is set for a --set-secret value or a name the spec makes
	// secret: the value is not kept and must be given again.
	Secret bool `json:"secret,omitempty"`
	// Round is the round that set it.
	Round int `json:"round"`
	// EnvFile is set when relaunch --in-env-file wrote the value into
	// the env file the dispatch chain re-sources.
	EnvFile *EnvFileEdit `json:"env_file,omitempty"`
}

// EnvFileEdit is the change relaunch --in-env-file made to an env file:
// enough to undo it byte for byte (--unset, --round N) and to see that
// nobody changed the file since. It is plain data, safe for concurrent
// use while no one changes it.
type EnvFileEdit struct {
	// File is the env file's absolute path; Line the assignment's line.
	File string `json:"file"`
	Line int    `json:"line"`
	// Round is the round that made the edit.
	Round int `json:"round"`
	// Appended is set when the file did not assign the name and a line
	// was added at its end.
	Appended bool `json:"appended,omitempty"`
	// OldDigest is the keyed digest of the value the file assigned
	// before the edit (empty when appended).
	OldDigest string `json:"old_digest,omitempty"`
	// Old is the text the edit replaced (the old value as written, quotes
	// included), kept only when the name is not secret: a secret's edit
	// cannot be restored.
	Old *string `json:"old,omitempty"`
	// Offset and NewLen locate the text written in the edited file.
	Offset int `json:"offset"`
	NewLen int `json:"new_len"`
	// After is the keyed digest of the whole file as the edit left it,
	// AfterLines of each of its lines (to name what someone changed since).
	After      string   `json:"after"`
	AfterLines []string `json:"after_lines,omitempty"`
}

// RoundDelta is what one round changed. It is plain data, safe for
// concurrent use while no one changes it.
type RoundDelta struct {
	Set   []Override `json:"set"`
	Unset []string   `json:"unset"`
}

// RoundEnd is how a round's worker (or, for a launch that failed, its
// tree) ended. It is plain data, safe for concurrent use while no one
// changes it.
type RoundEnd struct {
	// At is when it ended, or when a later command found it gone.
	At time.Time `json:"at"`
	// How is how it ended ("" while only who saw it is known).
	How        EndHow `json:"how"`
	ExitStatus *int   `json:"exit_status,omitempty"`
	Signal     string `json:"signal,omitempty"`
	// StoppedBy is set when childproof stopped it: the signal it sent and why.
	StoppedBy string `json:"stopped_by,omitempty"`
	// UptimeSeconds runs from the launch to At; UptimeAtMost marks an
	// upper bound (the end was found later, not seen).
	UptimeSeconds float64 `json:"uptime_seconds"`
	UptimeAtMost  bool    `json:"uptime_at_most,omitempty"`
	// Seen says who saw the end.
	Seen EndSeen `json:"seen"`
	// LastLines is how many of the log's last lines TailDigest covers
	// (at most 10); TailDigest is their keyed digest: equal digests, same
	// last words. The lines themselves are in the kept log.
	LastLines  int    `json:"last_lines"`
	TailDigest string `json:"tail_digest,omitempty"`
	Log        string `json:"log,omitempty"`
}

// clone is a deep copy of r: it shares no slice, map or pointer with r
// (TestRoundCloneShares checks every field, so a field added to Round or
// its parts that clone does not copy fails it).
func (r *Round) clone() *Round {
	c := *r
	c.Delta.Set = cloneOverrides(r.Delta.Set)
	c.Delta.Unset = slices.Clone(r.Delta.Unset)
	c.Overrides = cloneOverrides(r.Overrides)
	c.Problems = slices.Clone(r.Problems)
	c.Signals = slices.Clone(r.Signals)
	if r.Worker != nil {
		w := *r.Worker
		c.Worker = &w
	}
	c.WorkerEnv = maps.Clone(r.WorkerEnv)
	c.Volatile = slices.Clone(r.Volatile)
	if r.End != nil {
		e := *r.End
		if e.ExitStatus != nil {
			x := *e.ExitStatus
			e.ExitStatus = &x
		}
		c.End = &e
	}
	return &c
}

// cloneOverrides is a deep copy of ovs (nil stays nil, empty empty).
func cloneOverrides(ovs []Override) []Override {
	out := slices.Clone(ovs)
	for i := range out {
		if v := out[i].Value; v != nil {
			x := *v
			out[i].Value = &x
		}
		if e := out[i].EnvFile; e != nil {
			c := *e
			if c.Old != nil {
				x := *c.Old
				c.Old = &x
			}
			c.AfterLines = slices.Clone(c.AfterLines)
			out[i].EnvFile = &c
		}
	}
	return out
}

// Uptime returns the end's uptime.
func (e *RoundEnd) Uptime() time.Duration {
	return time.Duration(e.UptimeSeconds * float64(time.Second)).Round(time.Millisecond)
}

// String is how the worker ended: "exit 1", "killed by SIGKILL",
// "stopped by childproof", "gone, status unknown" (another How as it is),
// with " (stopped)" when childproof stopped a worker whose status it saw.
func (e *RoundEnd) String() string {
	var s string
	switch e.How {
	case EndExited:
		s = "exit " + strconv.Itoa(*e.ExitStatus)
	case EndSignaled:
		s = "killed by " + e.Signal
	case EndStopped:
		s = "stopped by childproof"
	case EndGone:
		s = "gone, status unknown"
	default:
		s = string(e.How)
	}
	if e.StoppedBy != "" && e.How != EndStopped {
		s += " (stopped)"
	}
	return s
}

// MaxRoundFile caps a round file read from the state dir.
const MaxRoundFile = 4 << 20

// Redacted returns a copy of r to show (history --format json): without
// the worker's environment or the MAC, with an override's value only when
// showValues is set and never a secret one, and with an env file edit's
// replaced text only when showValues is set and never the digests of the
// file's lines. r is not changed.
func (r *Round) Redacted(showValues bool) *Round {
	c := *r
	strip := func(ovs []Override) []Override {
		out := slices.Clone(ovs)
		for i := range out {
			if !showValues || out[i].Secret {
				out[i].Value = nil
			}
			if e := out[i].EnvFile; e != nil {
				c := *e
				c.AfterLines = nil
				if !showValues {
					c.Old = nil
				}
				out[i].EnvFile = &c
			}
		}
		return out
	}
	c.Overrides = strip(r.Overrides)
	c.Delta.Set = strip(r.Delta.Set)
	c.WorkerEnv = nil
	c.MAC = ""
	return &c
}

// Command names what a round came from, in the round history (Round.Command,
// Provenance.Command). A Go caller may name its own.
type Command string

// The commands childproof itself records.
const (
	// CommandStart is a Start whose Provenance names no command.
	CommandStart Command = "start"
	// CommandRun is childproof run.
	CommandRun Command = "run"
	// CommandRelaunch is childproof relaunch (and a Relaunch whose
	// Provenance names no command).
	CommandRelaunch Command = "relaunch"
	// CommandUp is childproof up.
	CommandUp Command = "up"
	// CommandRestart is a restart by the launch's restart policy: a round
	// of its own with an empty delta, whose baseline is the round it
	// restarts.
	CommandRestart Command = "restart"
	// CommandRollback is relaunch --rollback bringing the previous round
	// back.
	CommandRollback Command = "rollback"
)
