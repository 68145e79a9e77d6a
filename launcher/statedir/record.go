package statedir

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/internal/atomicfile"
	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/verify"
)

// Record is what the state dir keeps of a launch. It never holds a value:
// environment entries are names and keyed digests. The record file is one
// flat JSON object, keys in this order. It is plain data, safe for
// concurrent use while no one changes it. A foreground Launch changes its
// own Record while Wait, Stop or NoteRestart runs.
type Record struct {
	Name string `json:"name"`

	// What was launched: from which spec, and the argv and directory of
	// the launched process.
	SpecPath string   `json:"spec_path,omitempty"`
	SpecHash string   `json:"spec_hash,omitempty"`
	Argv     []string `json:"argv"`
	Dir      string   `json:"dir"`

	// When it started and who watches it.
	Started  time.Time `json:"started"`
	Detached bool      `json:"detached"`
	// Supervisor is the pid of the childproof that supervises in the
	// foreground (0 when detached).
	Supervisor int `json:"supervisor,omitempty"`

	// The tree: the launched root and the worker by fingerprint, the
	// process group and the cgroup ("" without one).
	Root   verify.Fingerprint `json:"root"`
	Worker verify.Fingerprint `json:"worker"`
	Pgid   int                `json:"pgid"`
	Cgroup string             `json:"cgroup,omitempty"`
	// Marker is the launch's MarkerVar value: without a cgroup, the
	// processes whose environ carries it are the launch's tree.
	Marker string `json:"marker,omitempty"`
	// Relay is the log relay of a detached launch (the childproof-log
	// process that reads the tree's output pipe and masks it into the
	// log; nil: none, a foreground launch). It belongs to the launch but
	// is not a member of its tree (it carries the marker as
	// logrelay.OfEnv, and runs outside the cgroup): it ends when the
	// tree's last holder of the pipe has gone, and stop, ps and the next
	// run end one that outlived its tree (see docs/spec.md).
	Relay *verify.Fingerprint `json:"relay,omitempty"`
	Ports []RecordPort        `json:"ports,omitempty"`
	// Selector is the spec's worker selector and roles (nil in a record
	// written before it was kept, or when a comm or exe holds a secret).
	Selector *RecordSelector `json:"selector,omitempty"`

	// The environment evidence, as names and keyed digests.
	//
	// Env maps the protected names to the digest of the intended value
	// ("" for require-only names).
	Env map[string]string `json:"env"`
	// Given maps each require-only name to the digest of the value
	// childproof passed the launch root for it (inherited from the caller
	// or read from the env file; never the value): later verifies compare
	// the worker with it.
	Given map[string]string `json:"given,omitempty"`
	// WorkerEnv maps every name in the worker's environ to its digest:
	// the block captured at its exec when there is one, else its live
	// environ when it was verified.
	WorkerEnv map[string]string `json:"worker_env"`
	// ExecEnv is set when the launch captured the worker's environment at
	// its exec (see exectrace.Tracer): every name to its digest. A later verify
	// judges the worker by it while the worker still runs ExecExe (the
	// program it exec'd then), whatever its live block says now.
	ExecEnv map[string]string `json:"exec_env,omitempty"`
	ExecExe string            `json:"exec_exe,omitempty"`
	// ExecArea is where that exec put the worker's environment block
	// (verify.ExecArea): a later exec of the same program moves it.
	ExecArea string `json:"exec_area,omitempty"`
	// Ranks are the workers of a multi-process job (worker { count = N
	// }), in start order (verify.Workers), the first being Worker; empty for one worker.
	Ranks []RecordRank `json:"ranks,omitempty"`
	// Members are the launched tree's other exec'd members the launch
	// judged (verify.Report.Members) whose exec the tracer captured: a
	// later verify judges each by that capture while it still runs that
	// exec's image, whatever its live block says by then.
	Members []RecordMember `json:"members,omitempty"`
	// Diverged is set when foreground supervision found a member that
	// appeared after the launch was verified with a protected name at
	// another value (env-diverged): what it found, in words (digests, no
	// value). ps shows the launch as "diverged".
	Diverged string `json:"diverged,omitempty"`
	Log      string `json:"log"`
	// StopSignal and StopTimeout are the spec's stop block ("SIGQUIT",
	// "30s"; empty: SIGTERM, DefaultStopGrace) that every later stop of
	// the launch uses.
	StopSignal  string `json:"stop_signal,omitempty"`
	StopTimeout string `json:"stop_timeout,omitempty"`
	// Oneshot marks a launch that runs to completion (the spec's
	// oneshot); LastExit is its exit status once it did.
	Oneshot bool `json:"oneshot,omitempty"`
	// Vars are the spec variables the launch was started with (--var),
	// in the order given; relaunch reuses them.
	Vars []RecordVar `json:"vars,omitempty"`

	// What became of the launch since it started.
	//
	// Stopped is set when childproof stopped the launch.
	Stopped *time.Time `json:"stopped,omitempty"`
	// Pending marks the provisional record written as soon as the tree
	// exists, before the worker is found and verified: Worker is then the
	// launch root. It stays only when childproof died mid-launch (a
	// detached tree outlives it); the verified record replaces it, and a
	// failed launch restores the previous record.
	Pending bool `json:"pending,omitempty"`
	// Restarts counts the restarts foreground supervision (run, up) made
	// by the launch's restart policy, each verified on its new worker;
	// LastExit is the status the previous worker exited with.
	Restarts int  `json:"restarts,omitempty"`
	LastExit *int `json:"last_exit,omitempty"`
	// Secrets holds a keyed digest of each secret value of the launch
	// (never the value), under its name: commands that launch nothing mask
	// what they print with it when the caller lacks the values.
	Secrets []RecordSecret `json:"secrets,omitempty"`
	// Round is the launch's round in the state dir's history (0: a record
	// written before rounds were kept).
	Round int `json:"round,omitempty"`
	// MAC authenticates the record: HMAC-SHA256 under a key derived from
	// the state dir's key. In a record file of format v2 (what Save
	// writes) it is in the file's first line and covers the bytes of the
	// lines after it; in a v1 file (one JSON object, still read) it is
	// this field, over the record's canonical JSON with MAC empty. A
	// record without a valid MAC is never acted on.
	MAC string `json:"mac,omitempty"`
}

// ExecEvidence returns the worker's environment as captured at its exec,
// as a record keeps it (nil: none was captured).
func (r *Record) ExecEvidence() *verify.ExecEnv {
	if r.ExecEnv == nil {
		return nil
	}
	return &verify.ExecEnv{Digests: r.ExecEnv, Exe: r.ExecExe, Area: r.ExecArea}
}

// EvidenceOf returns the exec-time evidence the record kept for the process pid
// is now (the worker, a rank or a member of the same pid and start time, or
// one of them pid was forked from without an exec since), nil when it kept
// none: that process is then judged by its live block.
func (r *Record) EvidenceOf(p proc.FS, pid int) *verify.ExecEnv {
	st, err := p.Stat(pid)
	if err != nil {
		return nil
	}
	if r.Worker.Pid == pid && r.Worker.StartTime == st.StartTime {
		return r.ExecEvidence()
	}
	for i := range r.Ranks {
		if rk := &r.Ranks[i]; rk.Worker.Pid == pid && rk.Worker.StartTime == st.StartTime {
			return rk.ExecEvidence()
		}
	}
	for _, m := range r.Members {
		if m.Pid == pid && m.StartTime == st.StartTime {
			return &verify.ExecEnv{Digests: m.ExecEnv, Exe: m.ExecExe, Area: m.ExecArea}
		}
	}
	// A process forked from a recorded one without an exec since (a
	// daemon's fork: nginx judged before it daemonized) carries the
	// environment that exec set: same program, same environment area
	// (where each exec puts the block moves with ASLR), started later.
	area, exe := verify.ExecArea(st), ""
	forkedFrom := func(ev *verify.ExecEnv, start uint64) bool {
		if ev == nil || ev.Area == "" || ev.Area != area || st.StartTime < start {
			return false
		}
		if exe == "" {
			exe, _ = p.Exe(pid)
		}
		return exe != "" && exe == ev.Exe
	}
	if ev := r.ExecEvidence(); forkedFrom(ev, r.Worker.StartTime) {
		return ev
	}
	for i := range r.Ranks {
		if ev := r.Ranks[i].ExecEvidence(); forkedFrom(ev, r.Ranks[i].Worker.StartTime) {
			return ev
		}
	}
	for _, m := range r.Members {
		if m.ExecEnv != nil && forkedFrom(&verify.ExecEnv{Digests: m.ExecEnv, Exe: m.ExecExe, Area: m.ExecArea}, m.StartTime) {
			return &verify.ExecEnv{Digests: m.ExecEnv, Exe: m.ExecExe, Area: m.ExecArea}
		}
	}
	return nil
}

// DefaultStopGrace is the stop grace of a launch whose spec sets no
// stop.timeout (launcher.DefaultStopGrace names it).
const DefaultStopGrace = 10 * time.Second

// StopGrace is how long a stop of the recorded launch waits after its
// stop signal before SIGKILL: the spec's stop.timeout it was launched
// with, else DefaultStopGrace.
func (r *Record) StopGrace() time.Duration {
	if d, err := time.ParseDuration(r.StopTimeout); err == nil && d > 0 {
		return d
	}
	return DefaultStopGrace
}

// StopGraceOr is timeout when it is positive (stop --timeout, relaunch
// --timeout), else the record's own (StopGrace).
func (r *Record) StopGraceOr(timeout time.Duration) time.Duration {
	if timeout > 0 {
		return timeout
	}
	return r.StopGrace()
}

// RecordRank is one worker of a multi-process job: its fingerprint and
// its environment as digests, as Record keeps the worker's. It is plain
// data, safe for concurrent use while no one changes it.
type RecordRank struct {
	// Role is the worker role that selected it ("": the unlabelled worker
	// block).
	Role      string             `json:"role,omitempty"`
	Worker    verify.Fingerprint `json:"worker"`
	WorkerEnv map[string]string  `json:"worker_env"`
	ExecEnv   map[string]string  `json:"exec_env,omitempty"`
	ExecExe   string             `json:"exec_exe,omitempty"`
	ExecArea  string             `json:"exec_area,omitempty"`
}

// ExecEvidence returns the rank's environment as captured at its exec
// (nil: none was captured).
func (r *RecordRank) ExecEvidence() *verify.ExecEnv {
	if r.ExecEnv == nil {
		return nil
	}
	return &verify.ExecEnv{Digests: r.ExecEnv, Exe: r.ExecExe, Area: r.ExecArea}
}

// RecordMember is one exec'd member of a launched tree as its exec
// received its environment: pid and start time (which process), and the
// digests of the launch's protected names in that block (a name missing
// from ExecEnv was not set). It is plain data, safe for concurrent use
// while no one changes it.
type RecordMember struct {
	Pid       int               `json:"pid"`
	StartTime uint64            `json:"start_time"`
	ExecEnv   map[string]string `json:"exec_env"`
	ExecExe   string            `json:"exec_exe,omitempty"`
	ExecArea  string            `json:"exec_area,omitempty"`
}

// RecordVar is a spec variable a launch was started with: its value, or,
// when the value is a secret of the launch, only its keyed digest
// (State.Digest("var."+Name, value)). It is plain data, safe for
// concurrent use while no one changes it.
type RecordVar struct {
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`
	Digest string `json:"digest,omitempty"`
}

// RecordPort is a recorded port. It is plain data, safe for concurrent
// use while no one changes it.
type RecordPort struct {
	Number  int    `json:"number"`
	Address string `json:"address"`
}

// RecordSecret is the digest of one secret value, State.Digest(Name,
// value), and where the secret occurs in the launch: Occurs are parts as
// in redact.Occurrence ("argv[2]": Argv[2] is built from it; "env[URL]").
// Nil Occurs: nowhere, or a record of a childproof that did not store
// them. It is plain data, safe for concurrent use while no one changes
// it.
type RecordSecret struct {
	Name   string   `json:"name"`
	Digest string   `json:"digest"`
	Occurs []string `json:"occurs,omitempty"`
}

// RecordSecrets returns the secrets of a recorded launch for a command
// that does not know their values: each by its digest, and where it
// occurs, an argv occurrence shown as the record's Argv element (masked).
// A record of an older childproof stored no occurrences: there, every
// argv element holding a secret's placeholder counts as one. Nothing for
// a nil record or when the state key is not usable.
func (s *Store) RecordSecrets(rec *Record) []redact.Secret {
	if rec == nil || s.KeyErr() != nil {
		return nil
	}
	legacy := true
	for _, sec := range rec.Secrets {
		if sec.Occurs != nil {
			legacy = false
		}
	}
	var out []redact.Secret
	for _, sec := range rec.Secrets {
		r := redact.Secret{Name: sec.Name, Digest: sec.Digest}
		for _, part := range sec.Occurs {
			o := redact.Occurrence{Part: part}
			if i, ok := argvIndex(part); ok && i < len(rec.Argv) {
				o.Shown = rec.Argv[i]
			}
			r.Occurs = append(r.Occurs, o)
		}
		// An exe path built from the secret (dir = env("D")), kept
		// masked: a live path of that shape is masked the same.
		for _, exe := range recordExes(rec) {
			if strings.Contains(exe, redact.Placeholder(sec.Name)) {
				r.Occurs = append(r.Occurs, redact.Occurrence{Part: "exe", Shown: exe})
			}
		}
		if legacy {
			for i, a := range rec.Argv {
				if strings.Contains(a, redact.Placeholder(sec.Name)) {
					r.Occurs = append(r.Occurs, redact.Occurrence{Part: fmt.Sprintf("argv[%d]", i), Shown: a})
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// recordExes returns the distinct exe paths rec keeps.
func recordExes(rec *Record) []string {
	var out []string
	add := func(e string) {
		if e != "" && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	add(rec.Root.Exe)
	add(rec.Worker.Exe)
	add(rec.ExecExe)
	for _, rk := range rec.Ranks {
		add(rk.Worker.Exe)
		add(rk.ExecExe)
	}
	for _, m := range rec.Members {
		add(m.ExecExe)
	}
	return out
}

// argvIndex returns N of an occurrence's part "argv[N]".
func argvIndex(part string) (int, bool) {
	n, ok := strings.CutPrefix(part, "argv[")
	if !ok {
		return 0, false
	}
	n, ok = strings.CutSuffix(n, "]")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	return i, err == nil && i >= 0
}

func (s *Store) recordPath(name string) string { return s.Files.Record(name) }

// legacyRecordPath is where a state dir of the legacy naming that could
// not be migrated (read-only) keeps name's record, or "" when that is
// recordPath.
func (s *Store) legacyRecordPath(name string) string {
	if !legacyDiffers(name) {
		return ""
	}
	return s.Files.LegacyRecord(name)
}

// ErrUntrusted is wrapped by the error Load returns for a record whose MAC
// does not verify.
var ErrUntrusted = errors.New("not acted on")

// macParsed is the MAC of a v1 record that was just decoded from its
// file: the v1 MAC covers the record's canonical JSON with MAC empty (its
// encoding after one decode round trip, so one encoding of a decoded
// record is canonical) after a domain prefix.
func (s *Store) macParsed(r *Record) (string, error) {
	c := *r
	c.MAC = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	return s.macOf(append([]byte("childproof record v1\x00"), b...)), nil
}

func (s *Store) macOf(b []byte) string { return s.recordMAC("", b) }

// recordMAC is "hmac-sha256:HEX", the HMAC-SHA256 under RecordKey of
// domain followed by b, made with a keyed state from a pool (as Digest's:
// Reset goes back to the keyed start; a start and stop seals eight
// records, rounds and masks).
func (s *Store) recordMAC(domain string, b []byte) string {
	m, _ := s.recMACs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, s.RecordKey())
	} else {
		m.Reset()
	}
	m.Write([]byte(domain))
	m.Write(b)
	var sum [sha256.Size]byte
	var mac [len("hmac-sha256:") + 2*sha256.Size]byte
	copy(mac[:], "hmac-sha256:")
	hex.Encode(mac[len("hmac-sha256:"):], m.Sum(sum[:0]))
	s.recMACs.Put(m)
	return string(mac[:])
}

// The v2 record file is three lines, each one JSON value:
//
//	{"format":"childproof record v2","mac":"hmac-sha256:HEX"}
//	SUMMARY (Summary: what ps needs)
//	RECORD (the whole Record, without its MAC)
//
// The MAC covers the bytes after the first line as they are in the file,
// so a reader checks it before decoding anything, and ps decodes only the
// summary line. v1 files (one JSON object whose "mac" covers its
// canonical re-encoding) are still read.
const (
	recordV2Head   = `{"format":"childproof record v2","mac":"hmac-sha256:`
	recordV2Domain = "childproof record v2\x00"
	macHexLen      = 64
)

// tornV2 says what is wrong with a v2 record file that splitV2 refuses:
// the JSON error of its first line that is cut short or missing.
func tornV2(b []byte) error {
	lines := bytes.SplitN(b, []byte{'\n'}, 4)
	for i := range 3 {
		var line []byte
		if i < len(lines) {
			line = lines[i]
		}
		var v json.RawMessage
		if err := json.Unmarshal(line, &v); err != nil {
			return err
		}
	}
	return errors.New("not a record file of format v2")
}

// Summary is the part of a record that the census (ps) reads: the
// v2 file's second line, written from the same Record as the third. It is
// plain data, safe for concurrent reads.
type Summary struct {
	Name     string             `json:"name"`
	SpecPath string             `json:"spec_path,omitempty"`
	Started  time.Time          `json:"started"`
	Detached bool               `json:"detached"`
	Worker   verify.Fingerprint `json:"worker"`
	Cgroup   string             `json:"cgroup,omitempty"`
	Marker   string             `json:"marker,omitempty"`
	Ports    []RecordPort       `json:"ports,omitempty"`
	Log      string             `json:"log"`
	Stopped  *time.Time         `json:"stopped,omitempty"`
	Pending  bool               `json:"pending,omitempty"`
	Restarts int                `json:"restarts,omitempty"`
	LastExit *int               `json:"last_exit,omitempty"`
	Round    int                `json:"round,omitempty"`
	// Workers is the number of workers of a multi-process job (0: one).
	Workers int `json:"workers,omitempty"`
	// Oneshot marks a oneshot launch.
	Oneshot bool `json:"oneshot,omitempty"`
	// Relay is the record's log relay (a detached launch).
	Relay *verify.Fingerprint `json:"relay,omitempty"`
	// RootPid is the launch root's pid (0 in summaries written before it
	// was added): RecordsOfPids reads only the records it names.
	RootPid int `json:"root_pid,omitempty"`
	// Diverged is the record's (foreground supervision found a member
	// with another value).
	Diverged string `json:"diverged,omitempty"`
}

func summarize(r *Record) Summary {
	return Summary{Name: r.Name, SpecPath: r.SpecPath, Started: r.Started, Detached: r.Detached, Worker: r.Worker, Cgroup: r.Cgroup, Marker: r.Marker,
		Ports: r.Ports, Log: r.Log, Stopped: r.Stopped, Pending: r.Pending, Restarts: r.Restarts, LastExit: r.LastExit, Round: r.Round, Workers: len(r.Ranks), Relay: r.Relay,
		RootPid: r.Root.Pid, Oneshot: r.Oneshot, Diverged: r.Diverged}
}

// seal sets r.MAC and returns the record file's bytes (format v2).
func (s *Store) seal(r *Record) ([]byte, error) {
	b, _, err := s.sealSettled(r)
	return b, err
}

// sealScratch holds the buffers of a seal, reused from seal to seal: a
// start and stop seal a record four times and a round three, and each
// seal's lines were marshalled into buffers of their own, then copied
// into the file's. b takes the file (a record) or the JSON (a round),
// tmp a round's JSON with its MAC, ind that indented.
type sealScratch struct {
	b, tmp, ind []byte
}

var sealScratches = sync.Pool{New: func() any { return &sealScratch{} }}

// putSealScratch gives sc back, unless a huge value grew it.
func putSealScratch(sc *sealScratch) {
	if cap(sc.b) <= 1<<20 && cap(sc.tmp) <= 1<<20 && cap(sc.ind) <= 1<<20 {
		sealScratches.Put(sc)
	}
}

// sealSettled is seal, also returning the record as its file reads back
// (settledJSON; MAC set: r itself, unless JSON changed a value of it).
// The file's lines are written once by the hand encoder (marshalSealed's)
// into a reused buffer and copied out once; a record that it does not
// take, or that JSON would change (invalid UTF-8: its encoding has a
// \ufffd), is sealed by sealSettledRoundTrip.
func (s *Store) sealSettled(r *Record) ([]byte, *Record, error) {
	if s.KeyErr() != nil {
		return nil, nil, fmt.Errorf("record: %w", s.KeyErr())
	}
	sc := sealScratches.Get().(*sealScratch)
	defer putSealScratch(sc)
	mac := r.MAC
	r.MAC = ""
	b := append(sc.b[:0], recordV2Head...)
	b = append(b, macPlaceholder...)
	b = append(b, "\"}\n"...)
	head := len(b)
	sum := summarize(r)
	w := jw{b: b}
	ok := w.summary(&sum)
	w.b = append(w.b, '\n')
	at := len(w.b)
	ok = ok && w.record(r)
	w.b = append(w.b, '\n')
	sc.b = w.b
	if !ok || bytes.Contains(w.b[at:], []byte(`\ufffd`)) {
		r.MAC = mac
		return s.sealSettledRoundTrip(r)
	}
	out := bytes.Clone(w.b)
	r.MAC = s.macV2(out[head:])
	copy(out[len(recordV2Head):], r.MAC[len("hmac-sha256:"):])
	return out, r, nil
}

// macPlaceholder holds the place of a MAC's hex digits.
var macPlaceholder = strings.Repeat("0", macHexLen)

// sealSettledRoundTrip is sealSettled by way of sealedLinesOf (the
// record's settled copy: MAC empty).
func (s *Store) sealSettledRoundTrip(r *Record) ([]byte, *Record, error) {
	c := *r
	c.MAC = ""
	rec, sum, settled, err := sealedLinesOf(&c, false)
	if err != nil {
		return nil, nil, err
	}
	body := make([]byte, 0, len(sum)+len(rec)+2)
	body = append(append(body, sum...), '\n')
	body = append(append(body, rec...), '\n')
	r.MAC = s.macV2(body)
	out := make([]byte, 0, len(recordV2Head)+macHexLen+3+len(body))
	out = append(out, recordV2Head...)
	out = append(out, r.MAC[len("hmac-sha256:"):]...)
	out = append(out, "\"}\n"...)
	return append(out, body...), settled, nil
}

// sealedLines is the record line and the summary line of c (MAC
// empty), each as settledJSON reads it: a record is sealed four times
// per start and stop.
func sealedLines(c *Record, roundTrip bool) (rec, sum []byte, err error) {
	rec, sum, _, err = sealedLinesOf(c, roundTrip)
	return rec, sum, err
}

// sealedLinesOf is sealedLines, also returning the record the lines read
// back as.
func sealedLinesOf(c *Record, roundTrip bool) (rec, sum []byte, settled *Record, err error) {
	rec, c, err = settledJSON(c, roundTrip)
	if err != nil {
		return nil, nil, nil, err
	}
	s := summarize(c)
	sum, err = marshalSealed(&s)
	return rec, sum, c, err
}

// settledJSON is v's JSON as it reads back, and the value it reads back
// as. A value that JSON cannot keep as it is (invalid UTF-8 in a string:
// json.Marshal writes each invalid byte as \ufffd, and only those) is
// encoded and decoded once first, so that what is read back is what was
// sealed; roundTrip does so always. Any other value's first encoding is
// those bytes already, at half the cost, and v is returned as it is.
func settledJSON[T any](v *T, roundTrip bool) ([]byte, *T, error) {
	b, err := marshalSealed(v)
	if err != nil || !roundTrip && !bytes.Contains(b, []byte(`\ufffd`)) {
		return b, v, err
	}
	var rt T
	if err := json.Unmarshal(b, &rt); err != nil {
		return nil, nil, err
	}
	b, err = marshalSealed(&rt)
	return b, &rt, err
}

// withMAC returns the JSON object b (marshalled from a struct whose last
// field is `json:"mac,omitempty"`, empty) as the same struct marshals
// with that field set to mac: the member added before the closing brace.
// A MAC ("hmac-sha256:HEX") needs no escaping.
func withMAC(b []byte, mac string) []byte {
	return appendMAC(make([]byte, 0, len(b)+len(mac)+10), b, mac)
}

// appendMAC appends withMAC(b, mac) to out.
func appendMAC(out, b []byte, mac string) []byte {
	out = append(out, b[:len(b)-1]...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"mac":"`...)
	out = append(out, mac...)
	return append(out, `"}`...)
}

// macV2 is the MAC of a v2 record file's body (the bytes after its first
// line).
func (s *Store) macV2(body []byte) string { return s.recordMAC(recordV2Domain, body) }

// macChecker checks v2 MACs with one keyed HMAC state, reset for each
// record (a goroutine of the census checks hundreds).
type macChecker struct {
	h         hash.Hash
	got, want [sha256.Size]byte
}

func (s *Store) newMACChecker() *macChecker {
	return &macChecker{h: hmac.New(sha256.New, s.RecordKey())}
}

// ok reports whether mac ("hmac-sha256:HEX") is the MAC of body.
func (c *macChecker) ok(body []byte, mac string) bool {
	if n, err := hex.Decode(c.want[:], []byte(mac[len("hmac-sha256:"):])); err != nil || n != sha256.Size {
		return false
	}
	c.h.Reset()
	c.h.Write([]byte(recordV2Domain))
	c.h.Write(body)
	return hmac.Equal(c.h.Sum(c.got[:0]), c.want[:])
}

// splitV2 splits a v2 record file into its MAC and the summary and record
// lines; ok is false when b is not a well-formed v2 file.
func splitV2(b []byte) (mac string, body, sum, rec []byte, ok bool) {
	head, body, found := bytes.Cut(b, []byte{'\n'})
	if !found || len(head) != len(recordV2Head)+macHexLen+2 || !bytes.HasPrefix(head, []byte(recordV2Head)) || !bytes.HasSuffix(head, []byte(`"}`)) {
		return "", nil, nil, nil, false
	}
	sum, rec, found = bytes.Cut(body, []byte{'\n'})
	if !found || len(rec) == 0 || rec[len(rec)-1] != '\n' {
		return "", nil, nil, nil, false
	}
	return "hmac-sha256:" + string(head[len(recordV2Head):len(recordV2Head)+macHexLen]), body, sum, rec[:len(rec)-1], true
}

// NoteExit writes into name's record the status its supervised worker
// exited with (LastExit), once nothing restarts it. Without a readable
// record it writes nothing.
func (s *Store) NoteExit(name string, code int) error {
	rec, err := s.Load(name)
	if err != nil {
		return err
	}
	rec.LastExit = &code
	return s.Save(rec)
}

// Save writes r atomically (temp file, fsync, rename, fsync of the
// directory), authenticated with the state key.
func (s *Store) Save(r *Record) error {
	return s.saveRecord(r, true)
}

// SaveLaunched writes a launch's record (provisional, then verified)
// atomically, without fsync: the rename guards against childproof's own
// death at any moment (contract: a crash of childproof loses no record);
// an fsync would add survival of a power loss, which the launched
// processes the record describes do not survive either, and it sat on the
// launch's hot path (an fsync'd file and directory: 1–2 ms here, 10–20 ms
// behind other writers).
func (s *Store) SaveLaunched(r *Record) error {
	return s.saveRecord(r, false)
}

// saveRecord seals r and writes it (fsync'd when durable), noting what
// it wrote (wroteRecord).
func (s *Store) saveRecord(r *Record, durable bool) error {
	b, settled, err := s.sealSettled(r)
	if err != nil {
		return err
	}
	path := s.recordPath(r.Name)
	if err := writeStateFile(path, b, durable); err != nil {
		return err
	}
	s.wroteRecord(path, b, settled)
	return nil
}

func writeAtomic(path string, data []byte) error { return writeStateFile(path, data, true) }

// writeStateFile writes a private state file atomically (atomicfile, mode
// 0600). With durable it is fsync'd first and the directory after
// (WriteSync); without, it guards against childproof's own death, not the
// machine's (the launch's hot path).
func writeStateFile(path string, data []byte, durable bool) error {
	write := atomicfile.Write
	if durable {
		write = atomicfile.WriteSync
	}
	if err := write(path, data, 0o600); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// ReadRecordFile returns the bytes of launch name's record file (nil when
// there is none or it cannot be read safely).
func (s *Store) ReadRecordFile(name string) []byte {
	b, err := ReadFile(s.recordPath(name), MaxRecordSize)
	if err != nil {
		return nil
	}
	return b
}

// RestoreRecord puts back launch name's record file as prev, the bytes
// ReadRecordFile read before a launch that failed wrote its own (nil:
// there was none, and the file goes).
func (s *Store) RestoreRecord(name string, prev []byte) {
	path := s.recordPath(name)
	// What this Store wrote there last is there no more.
	s.wrote.mu.Lock()
	delete(s.wrote.records, path)
	s.wrote.mu.Unlock()
	if prev == nil {
		os.Remove(path)
	} else {
		writeAtomic(path, prev)
	}
}

// ownRecord reports whether the record file bytes b name launch name (a
// legacy file may be another name's: a..b and a__b shared one).
func ownRecord(b []byte, name string) bool {
	var sum struct {
		Name *string `json:"name"`
	}
	for i, line := range bytes.SplitN(b, []byte{'\n'}, 4) {
		if i < 3 && json.Unmarshal(line, &sum) == nil && sum.Name != nil {
			return *sum.Name == name
		}
	}
	return false
}

// Load reads the record of launch name. A missing record wraps
// fs.ErrNotExist. A record that fails authentication is never returned:
// the error is an *Error (Unproven, Kind verify.KindUntrustedRecord) wrapping
// ErrUntrusted.
func (s *Store) Load(name string) (*Record, error) {
	_, r, err := s.LoadFile(name)
	return r, err
}

// LoadFile is Load, also returning the bytes of launch name's record file
// as ReadRecordFile does (nil when there is none or it cannot be read
// safely): one read of the file for both.
func (s *Store) LoadFile(name string) ([]byte, *Record, error) {
	path := s.recordPath(name)
	b, err := ReadFile(path, MaxRecordSize)
	file := b
	if err != nil {
		file = nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		if old := s.legacyRecordPath(name); old != "" {
			// A legacy file is name's only when it says so.
			if ob, oerr := ReadFile(old, MaxRecordSize); oerr == nil && ownRecord(ob, name) {
				path, b, err = old, ob, nil
			}
		}
	}
	if err != nil {
		return file, nil, fmt.Errorf("no record of launch %q: %w", name, err)
	}
	r, err := s.parseRecord(name, path, b)
	return file, r, err
}

// parseRecord decodes and authenticates a record file's bytes.
func (s *Store) parseRecord(name, path string, b []byte) (*Record, error) {
	var r Record
	if err := s.readRecord(name, path, b, &r, nil, nil); err != nil {
		return nil, err
	}
	return &r, nil
}

// parseSummary authenticates a record file's bytes and decodes only the
// summary of a v2 file (the whole of a v1 file); mc (nil: a new one)
// checks the MAC.
func (s *Store) parseSummary(name, path string, b []byte, mc *macChecker) (Summary, error) {
	var sum Summary
	// A v2 file's summary line is all that is decoded: no Record (a
	// large value the decoder would put on the heap) for it.
	var r *Record
	if !bytes.HasPrefix(b, []byte(recordV2Head)) {
		r = new(Record)
	}
	if err := s.readRecord(name, path, b, r, &sum, mc); err != nil {
		return sum, err
	}
	if r != nil && sum.Name == "" { // a v1 file
		sum = summarize(r)
	}
	return sum, nil
}

// readRecord authenticates the record file bytes b of launch name and
// decodes them: into sum when it is not nil and b is a v2 file (then r
// stays empty), else into r. mc checks a v2 MAC (nil: a new one).
func (s *Store) readRecord(name, path string, b []byte, r *Record, sum *Summary, mc *macChecker) error {
	untrusted := func(why string) error {
		c := claimOf(b)
		hint := "childproof acts only on records it wrote under this state dir's key; check the process yourself, then remove " + path
		if c.Worker.Pid > 0 {
			hint = fmt.Sprintf("childproof acts only on records it wrote under this state dir's key; the record claims %s — unverified: check that process yourself (ls -l /proc/%d/exe; ps -o pid,lstart,args -p %d), then remove %s",
				c.String(), c.Worker.Pid, c.Worker.Pid, path)
		}
		if s.KeyErr() != nil {
			why = s.KeyErr().Error()
		}
		msg := fmt.Sprintf("the record of %q fails authentication (%s)", name, why)
		rep := verify.NewReport(name)
		rep.Add(verify.KindUntrustedRecord, "%s: not acted on", msg)
		rep.SetOutcome(outcome.UntrustedRecord)
		return &failure.Error{Outcome: outcome.UntrustedRecord, Msg: msg, Hint: hint, Err: &UntrustedClaim{Worker: c.Worker, Started: c.Started}, Report: rep}
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".json")
	named := func(got string) error {
		// The file must be the one of the launch it names (its encoded
		// name, or its legacy one), and that launch the one asked for
		// (name: the launch's name, or the stem when scan reads).
		if !Names(stem, got) || name != stem && name != got {
			return untrusted(fmt.Sprintf("it names launch %q", got))
		}
		return nil
	}
	if bytes.HasPrefix(b, []byte(recordV2Head)) {
		// v2: the MAC over the raw bytes first, then decode what is needed.
		mac, body, sumLine, recLine, ok := splitV2(b)
		if !ok {
			// Cut short (records are replaced by rename: only damage
			// does this): unreadable, as a torn v1 record is.
			return fmt.Errorf("record of %q: %w", name, tornV2(b))
		}
		if s.KeyErr() != nil {
			return untrusted("")
		}
		if mc == nil {
			mc = s.newMACChecker()
		}
		if !mc.ok(body, mac) {
			return untrusted("its MAC does not match its contents")
		}
		if sum != nil {
			if err := decodeSummary(sumLine, sum); err != nil {
				return fmt.Errorf("record of %q: %w", name, err)
			}
			return named(sum.Name)
		}
		if err := json.Unmarshal(recLine, r); err != nil {
			return fmt.Errorf("record of %q: %w", name, err)
		}
		r.MAC = mac
		return named(r.Name)
	}
	if err := json.Unmarshal(b, r); err != nil {
		return fmt.Errorf("record of %q: %w", name, err)
	}
	if s.KeyErr() != nil {
		return untrusted("")
	}
	if r.MAC == "" {
		return untrusted("it has no MAC")
	}
	want, err := s.macParsed(r)
	if err != nil || !hmac.Equal([]byte(want), []byte(r.MAC)) {
		return untrusted("its MAC does not match its contents")
	}
	return named(r.Name)
}

// Records returns every record, sorted by name. Records that cannot be
// read, parsed or authenticated are left out (Census names them).
func (s *Store) Records() ([]*Record, error) {
	recs, _, err := scan(s, func() func(string) (*Record, error) {
		return func(stem string) (*Record, error) {
			path := filepath.Join(s.Dir, RecordsDir, stem+".json")
			b, err := ReadFile(path, MaxRecordSize)
			if err != nil {
				return nil, fmt.Errorf("no record of launch %q: %w", NameOfStem(stem), err)
			}
			return s.parseRecord(stem, path, b)
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Name < recs[j].Name })
	return recs, err
}

// RecordsOfPids returns the records whose worker or root is one of pids:
// Records filtered by them, at the cost of reading each file. A record's
// summary line, read before it is authenticated, says whether it can be
// one of them; only those records are authenticated and decoded (a
// trusted record's summary is covered by its MAC, so no trusted record
// is missed). verify --pid masks with them: authenticating and decoding
// all of 1,000 records cost a probe about 15 ms of CPU.
func (s *Store) RecordsOfPids(pids ...int) ([]*Record, error) {
	dir := filepath.Join(s.Dir, RecordsDir)
	recs, _, err := scan(s, func() func(string) (*Record, error) {
		return func(stem string) (*Record, error) {
			path := filepath.Join(dir, stem+".json")
			b, err := ReadFile(path, MaxRecordSize)
			if err != nil {
				return nil, err
			}
			if !mayBeOf(b, pids) {
				return nil, nil
			}
			return s.parseRecord(stem, path, b)
		}
	})
	if err != nil {
		return nil, err
	}
	out := recs[:0]
	for _, r := range recs {
		if r != nil && (slices.Contains(pids, r.Worker.Pid) || slices.Contains(pids, r.Root.Pid)) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// mayBeOf reports whether record file bytes b may be the record of a
// root or worker in pids, from the v2 summary line and without trusting
// it: true unless it names its worker and its root (root_pid) and
// neither is in pids. A v1 file, or one that cannot be read, may be.
func mayBeOf(b []byte, pids []int) bool {
	if !bytes.HasPrefix(b, []byte(recordV2Head)) {
		return true
	}
	_, _, sumLine, _, ok := splitV2(b)
	if !ok {
		return true
	}
	// Only the two pids (Summary's names): the rest is skipped.
	var sum struct {
		Worker struct {
			Pid int `json:"pid"`
		} `json:"worker"`
		RootPid int `json:"root_pid"`
	}
	if json.Unmarshal(sumLine, &sum) != nil || sum.RootPid == 0 {
		return true
	}
	return slices.Contains(pids, sum.Worker.Pid) || slices.Contains(pids, sum.RootPid)
}

// BadRecord is a record file that cannot be read, parsed or
// authenticated. It is plain data, safe for concurrent reads.
type BadRecord struct {
	// Name is the launch the file is named for; Err why it is bad.
	Name string
	Err  error
}

// Untrusted reports whether the record failed authentication.
func (b BadRecord) Untrusted() bool { return errors.Is(b.Err, ErrUntrusted) }

// summaries reads the summary of every record, sorted by name, and lists
// the bad ones.
func (s *Store) Summaries() ([]Summary, []BadRecord, error) {
	dir := filepath.Join(s.Dir, "records")
	dfd, err := OpenDir(dir)
	if err != nil {
		return nil, nil, err
	}
	defer CloseDir(dfd)
	sums, bad, err := scan(s, func() func(string) (Summary, error) {
		// Each goroutine reads into one buffer and checks MACs with one
		// HMAC state; files are opened relative to the records dir.
		mc := s.newMACChecker()
		var buf []byte
		return func(name string) (Summary, error) {
			b, err := ReadFileAt(dfd, dir, name+".json", MaxRecordSize, buf)
			if err != nil {
				return Summary{}, fmt.Errorf("no record of launch %q: %w", NameOfStem(name), err)
			}
			buf = b
			return s.parseSummary(name, filepath.Join(dir, name+".json"), b, mc)
		}
	})
	sort.Slice(sums, func(i, j int) bool { return sums[i].Name < sums[j].Name })
	return sums, bad, err
}

// scan loads every record file of s and lists the bad ones. The files
// are read and authenticated by a few goroutines at once, each with the
// load function newLoad returns (name: the file's name without ".json").
func scan[T any](s *Store, newLoad func() func(name string) (T, error)) ([]T, []BadRecord, error) {
	ents, err := os.ReadDir(filepath.Join(s.Dir, "records"))
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") {
			// A temporary file whose writer died before its rename
			// (SIGKILL mid-write) goes once it is old enough.
			CleanTemp(filepath.Join(s.Dir, RecordsDir, n))
			continue
		}
		if !strings.HasSuffix(n, ".json") {
			continue
		}
		names = append(names, strings.TrimSuffix(n, ".json"))
	}
	recs := make([]T, len(names))
	errs := make([]error, len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(scanWorkers, len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			load := newLoad()
			for i := int(next.Add(1)) - 1; i < len(names); i = int(next.Add(1)) - 1 {
				recs[i], errs[i] = load(names[i])
			}
		}()
	}
	wg.Wait()
	// The good ones kept in place (a summary is a few hundred bytes: a
	// second slice of a thousand was ps's largest allocation).
	out := recs[:0]
	var bad []BadRecord
	for i, n := range names {
		if errs[i] != nil {
			bad = append(bad, BadRecord{Name: NameOfStem(n), Err: errs[i]})
			continue
		}
		out = append(out, recs[i])
	}
	clear(recs[len(out):])
	if len(out) == 0 {
		out = nil
	}
	return out, bad, nil
}

// scanWorkers is how many record files scan reads at once.
const scanWorkers = 8

// UntrustedClaim is what a record that fails authentication says of its
// worker: shown (ps, the hint) marked unverified, never acted on. It
// wraps ErrUntrusted. It is plain data, safe for concurrent use while no
// one changes it.
type UntrustedClaim struct {
	Worker  verify.Fingerprint
	Started time.Time
}

func (c *UntrustedClaim) Error() string { return ErrUntrusted.Error() }
func (c *UntrustedClaim) Unwrap() error { return ErrUntrusted }

// String is the claim for a message: "worker pid 1234 (mock-llm), started
// 2026-12-01 23:37:08 UTC (start time 123456 in clock ticks)".
func (c *UntrustedClaim) String() string {
	s := fmt.Sprintf("worker pid %d", c.Worker.Pid)
	if c.Worker.Comm != "" {
		s += fmt.Sprintf(" (%s)", c.Worker.Comm)
	}
	if !c.Started.IsZero() {
		s += ", launched " + c.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if c.Worker.StartTime != 0 {
		s += fmt.Sprintf(", process start time %d (clock ticks after boot)", c.Worker.StartTime)
	}
	return s
}

// claimOf decodes what record file bytes b say of their worker, without
// trusting them (v2: the summary line; v1: the whole file).
func claimOf(b []byte) *UntrustedClaim {
	var sum Summary
	if bytes.HasPrefix(b, []byte(recordV2Head)) {
		if _, _, sumLine, _, ok := splitV2(b); ok {
			json.Unmarshal(sumLine, &sum)
		}
	} else {
		var r Record
		if json.Unmarshal(b, &r) == nil {
			sum = summarize(&r)
		}
	}
	return &UntrustedClaim{Worker: sum.Worker, Started: sum.Started}
}

// SameLaunch reports whether r and b describe one launch: the same start
// and the same worker (a record replaced by a newer launch, or a pending
// record by its verified one, is another).
func (r *Record) SameLaunch(b *Record) bool {
	return r.Started.Equal(b.Started) && r.Worker.Matches(b.Worker) && r.Root.Matches(b.Root)
}
