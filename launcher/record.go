package launcher

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/verify"
)

// Record is what the state dir keeps of a launch. It never holds a value:
// environment entries are names and keyed digests.
type Record struct {
	Name     string    `json:"name"`
	SpecPath string    `json:"spec_path,omitempty"`
	SpecHash string    `json:"spec_hash,omitempty"`
	Argv     []string  `json:"argv"`
	Dir      string    `json:"dir"`
	Started  time.Time `json:"started"`
	Detached bool      `json:"detached"`
	// Supervisor is the pid of the childproof that supervises in the
	// foreground (0 when detached).
	Supervisor int                `json:"supervisor,omitempty"`
	Root       verify.Fingerprint `json:"root"`
	Worker     verify.Fingerprint `json:"worker"`
	Pgid       int                `json:"pgid"`
	Cgroup     string             `json:"cgroup,omitempty"`
	Ports      []RecordPort       `json:"ports,omitempty"`
	// Env maps the protected names to the digest of the intended value
	// ("" for require-only names).
	Env map[string]string `json:"env"`
	// WorkerEnv maps every name in the worker's environ to its digest:
	// the block captured at its exec when there is one, else its live
	// environ when it was verified.
	WorkerEnv map[string]string `json:"worker_env"`
	// ExecEnv is set when the launch captured the worker's environment at
	// its exec (see execWatch): every name to its digest. A later verify
	// judges the worker by it while the worker still runs ExecExe (the
	// program it exec'd then), whatever its live block says now.
	ExecEnv map[string]string `json:"exec_env,omitempty"`
	ExecExe string            `json:"exec_exe,omitempty"`
	Log     string            `json:"log"`
	// Stopped is set when childproof stopped the launch.
	Stopped *time.Time `json:"stopped,omitempty"`
	// Pending marks the provisional record written as soon as the tree
	// exists, before the worker is found and verified: Worker is then the
	// launch root. It stays only when childproof died mid-launch (a
	// detached tree outlives it); the verified record replaces it, and a
	// failed launch restores the previous record.
	Pending bool `json:"pending,omitempty"`
	// Restarts counts the restarts foreground supervision (run, up) made
	// by the launch's restart policy; each one was verified on its new
	// worker. LastExit is the status the previous worker exited with.
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
	// the state dir's key, over the record's canonical JSON with MAC
	// empty. A record without a valid MAC is never acted on.
	MAC string `json:"mac,omitempty"`
}

// RecordPort is a recorded port.
type RecordPort struct {
	Number  int    `json:"number"`
	Address string `json:"address"`
}

// RecordSecret is the digest of one secret value: State.Digest(Name, value).
type RecordSecret struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// Masker returns the redaction set of a recorded launch for a command that
// does not know the secret values: each recorded secret digest becomes a
// matcher (argv elements and words equal to the value are masked).
func (s *State) Masker(rec *Record) *redact.Set {
	set := redact.New()
	if rec == nil || s.keyErr != nil {
		return set
	}
	for _, sec := range rec.Secrets {
		sec := sec
		set.AddMatcher(sec.Name, func(v string) bool { return s.Digest(sec.Name, v) == sec.Digest })
	}
	return set
}

func (s *State) recordPath(name string) string {
	return filepath.Join(s.Dir, "records", safeName(name)+".json")
}

// ErrUntrusted is wrapped by the error Load returns for a record whose MAC
// does not verify.
var ErrUntrusted = errors.New("not acted on")

// canonical returns the bytes a record's MAC covers: its JSON with MAC
// empty, after one decode round trip (which settles what JSON cannot
// keep, such as invalid UTF-8 in an argv), with a domain prefix.
func canonical(r *Record) ([]byte, error) {
	c := *r
	c.MAC = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	var rt Record
	if err := json.Unmarshal(b, &rt); err != nil {
		return nil, err
	}
	b, err = json.Marshal(&rt)
	if err != nil {
		return nil, err
	}
	return append([]byte("childproof record v1\x00"), b...), nil
}

func (s *State) mac(r *Record) (string, error) {
	b, err := canonical(r)
	if err != nil {
		return "", err
	}
	return s.macOf(b), nil
}

// macParsed is mac for a record that was just decoded from JSON: one
// encoding is already canonical (decoding again changes nothing), which
// halves the cost of authenticating a thousand records for ps.
func (s *State) macParsed(r *Record) (string, error) {
	c := *r
	c.MAC = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	return s.macOf(append([]byte("childproof record v1\x00"), b...)), nil
}

func (s *State) macOf(b []byte) string {
	m := hmac.New(sha256.New, s.recordKey())
	m.Write(b)
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}

// seal sets r.MAC and returns the record file's bytes.
func (s *State) seal(r *Record, indent bool) ([]byte, error) {
	if s.keyErr != nil {
		return nil, fmt.Errorf("record: %w", s.keyErr)
	}
	mac, err := s.mac(r)
	if err != nil {
		return nil, err
	}
	r.MAC = mac
	var b []byte
	if indent {
		b, err = json.MarshalIndent(r, "", "  ")
	} else {
		b, err = json.Marshal(r)
	}
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Save writes r atomically (temp file, fsync, rename, fsync of the
// directory), authenticated with the state key.
func (s *State) Save(r *Record) error {
	b, err := s.seal(r, true)
	if err != nil {
		return err
	}
	return writeAtomic(s.recordPath(r.Name), b)
}

// savePending writes a provisional record without fsync: it guards
// against childproof's own death, not the machine's, and sits on the
// launch's hot path.
func (s *State) savePending(r *Record) error {
	b, err := s.seal(r, false)
	if err != nil {
		return err
	}
	return writeFile(s.recordPath(r.Name), b, false)
}

func writeAtomic(path string, data []byte) error { return writeFile(path, data, true) }

// writeFile writes a state file atomically: a temporary file in the same
// directory renamed into place. With durable it is fsync'd first and the
// directory after; without, it guards against childproof's own death, not
// the machine's (the launch's hot path).
func writeFile(path string, data []byte, durable bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("record: %w", err)
	}
	if durable {
		syncDir(filepath.Dir(path))
	}
	return nil
}

// readRecordFile returns the bytes of launch name's record file (nil when
// there is none or it cannot be read safely).
func (s *State) readRecordFile(name string) []byte {
	b, err := readStateFile(s.recordPath(name), maxRecordSize)
	if err != nil {
		return nil
	}
	return b
}

// Load reads the record of launch name. A missing record wraps
// fs.ErrNotExist. A record that fails authentication is never returned:
// the error is an *Error (Unproven, Kind verify.KindUntrustedRecord) wrapping
// ErrUntrusted.
func (s *State) Load(name string) (*Record, error) {
	path := s.recordPath(name)
	b, err := readStateFile(path, maxRecordSize)
	if err != nil {
		return nil, fmt.Errorf("no record of launch %q: %w", name, err)
	}
	return s.parseRecord(name, path, b)
}

// parseRecord decodes and authenticates a record file's bytes.
func (s *State) parseRecord(name, path string, b []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("record of %q: %w", name, err)
	}
	untrusted := func(why string) (*Record, error) {
		hint := "childproof acts only on records it wrote under this state dir's key; check the process yourself, then remove " + path
		if s.keyErr != nil {
			why = s.keyErr.Error()
		}
		msg := fmt.Sprintf("the record of %q fails authentication (%s)", name, why)
		r := verify.NewReport(name)
		r.Add(verify.KindUntrustedRecord, "%s: not acted on", msg)
		r.ExitCode = verify.CodeVerify
		return nil, &Error{Outcome: Unproven, Kind: verify.KindUntrustedRecord, Msg: msg, Hint: hint, Err: ErrUntrusted, Report: r}
	}
	if s.keyErr != nil {
		return untrusted("")
	}
	if r.MAC == "" {
		return untrusted("it has no MAC")
	}
	want, err := s.macParsed(&r)
	if err != nil || !hmac.Equal([]byte(want), []byte(r.MAC)) {
		return untrusted("its MAC does not match its contents")
	}
	if r.Name != name && safeName(r.Name) != name {
		return untrusted(fmt.Sprintf("it names launch %q", r.Name))
	}
	return &r, nil
}

// Records returns every record, sorted by name. Records that cannot be
// read, parsed or authenticated are left out (Census names them).
func (s *State) Records() ([]*Record, error) {
	recs, _, err := s.scan()
	return recs, err
}

// badRecord is a record file that cannot be read, parsed or authenticated.
type badRecord struct {
	name string
	err  error
}

// untrusted reports whether the record failed authentication.
func (b badRecord) untrusted() bool { return errors.Is(b.err, ErrUntrusted) }

// scan reads every record, sorted by name, and lists the bad ones. The
// files are read and authenticated by a few goroutines at once: with a
// thousand records, ps waits mostly on open(2).
func (s *State) scan() ([]*Record, []badRecord, error) {
	ents, err := os.ReadDir(filepath.Join(s.Dir, "records"))
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") {
			continue
		}
		names = append(names, strings.TrimSuffix(n, ".json"))
	}
	recs := make([]*Record, len(names))
	errs := make([]error, len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(scanWorkers, len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(names); i = int(next.Add(1)) - 1 {
				recs[i], errs[i] = s.Load(names[i])
			}
		}()
	}
	wg.Wait()
	var out []*Record
	var bad []badRecord
	for i, n := range names {
		if errs[i] != nil {
			bad = append(bad, badRecord{n, errs[i]})
			continue
		}
		out = append(out, recs[i])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, bad, nil
}

// scanWorkers is how many record files scan reads at once.
const scanWorkers = 8
