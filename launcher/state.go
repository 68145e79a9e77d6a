package launcher

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/verify"
)

// DefaultStateDir returns $CHILDPROOF_STATE_DIR, else
// $XDG_STATE_HOME/childproof, else ~/.local/state/childproof.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("CHILDPROOF_STATE_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "childproof"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("state dir: %w", err)
	}
	return filepath.Join(home, ".local", "state", "childproof"), nil
}

// State is an opened state directory: records, logs, locks and the digest key.
type State struct {
	Dir string
	key []byte
}

// OpenState opens (creating, mode 0700) the state dir; dir "" means
// DefaultStateDir. It creates the random digest key (mode 0600) on first use.
func OpenState(dir string) (*State, error) {
	if dir == "" {
		d, err := DefaultStateDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	for _, sub := range []string{"", "records", "logs", "locks"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("state dir: %w", err)
		}
	}
	if err := tighten(dir); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	s := &State{Dir: dir}
	key, err := loadKey(filepath.Join(dir, "key"))
	if err != nil {
		return nil, err
	}
	s.key = key
	return s, nil
}

// tighten makes dir mode 0700 when it holds nothing but childproof's own
// entries; a directory with other contents (a mistaken --state-dir $HOME)
// keeps its mode — what childproof puts there is 0700/0600 anyway.
func tighten(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		switch e.Name() {
		case "key", "records", "logs", "locks":
		default:
			if !strings.HasPrefix(e.Name(), "key.") {
				return nil
			}
		}
	}
	// Only when needed: a read-only state dir must still serve ps and stop.
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm() == 0o700 {
		return nil
	}
	return os.Chmod(dir, 0o700)
}

func loadKey(path string) ([]byte, error) {
	for range 3 {
		b, err := os.ReadFile(path)
		if err == nil && len(b) == 64 {
			k, err := hex.DecodeString(string(b))
			if err == nil {
				return k, nil
			}
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("digest key: %w", err)
		}
		if err == nil {
			// Another process is writing it right now (or it is corrupt).
			time.Sleep(10 * time.Millisecond)
			continue
		}
		k := make([]byte, 32)
		if _, err := rand.Read(k); err != nil {
			return nil, fmt.Errorf("digest key: %w", err)
		}
		tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
		if err := os.WriteFile(tmp, []byte(hex.EncodeToString(k)), 0o600); err != nil {
			return nil, fmt.Errorf("digest key: %w", err)
		}
		// link fails if another process created the key first: then use theirs.
		err = os.Link(tmp, path)
		os.Remove(tmp)
		if err == nil {
			return k, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("digest key: %w", err)
		}
	}
	return nil, errors.New("digest key: unreadable")
}

// Digest returns the keyed digest of NAME's value: "hmac-sha256:HEX".
func (s *State) Digest(name, value string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}

// Lock is a held launch lock.
type Lock struct{ f *os.File }

// Lock takes the lock of launch name without waiting. Another holder is an
// *Error with Code 6 wrapping ErrLocked.
func (s *State) Lock(name string) (*Lock, error) {
	f, err := os.OpenFile(filepath.Join(s.Dir, "locks", safeName(name)+".lock"), os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &Error{Code: CodeLocked, Kind: "locked", Msg: fmt.Sprintf("another childproof launch of %q holds the lock", name), Err: ErrLocked,
				Hint: "wait for it to finish, or stop it with 'childproof stop " + name + "'"}
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock; it is safe on nil and twice.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Close()
	l.f = nil
}

func safeName(name string) string {
	r := strings.NewReplacer("/", "_", "\x00", "_", "..", "__")
	if name == "" {
		return "_"
	}
	return r.Replace(name)
}

// LogPath returns the log file of launch name.
func (s *State) LogPath(name string) string {
	return filepath.Join(s.Dir, "logs", safeName(name)+".log")
}

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
	// WorkerEnv maps every name in the worker's environ to its digest.
	WorkerEnv map[string]string `json:"worker_env"`
	Log       string            `json:"log"`
	// Stopped is set when childproof stopped the launch.
	Stopped *time.Time `json:"stopped,omitempty"`
	// Pending marks the provisional record written as soon as the tree
	// exists, before the worker is found and verified: Worker is then the
	// launch root. It stays only when childproof died mid-launch (a
	// detached tree outlives it); the verified record replaces it, and a
	// failed launch restores the previous record.
	Pending bool `json:"pending,omitempty"`
}

// RecordPort is a recorded port.
type RecordPort struct {
	Number  int    `json:"number"`
	Address string `json:"address"`
}

func (s *State) recordPath(name string) string {
	return filepath.Join(s.Dir, "records", safeName(name)+".json")
}

// Save writes r atomically (temp file, fsync, rename).
func (s *State) Save(r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.recordPath(r.Name), append(b, '\n'))
}

// savePending writes a provisional record without fsync: it guards
// against childproof's own death, not the machine's, and sits on the
// launch's hot path.
func (s *State) savePending(r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	path := s.recordPath(r.Name)
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
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
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Load reads the record of launch name. A missing record wraps fs.ErrNotExist.
func (s *State) Load(name string) (*Record, error) {
	b, err := os.ReadFile(s.recordPath(name))
	if err != nil {
		return nil, fmt.Errorf("no record of launch %q: %w", name, err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("record of %q: %w", name, err)
	}
	return &r, nil
}

// Records returns every record, sorted by name. Records that cannot be
// read or parsed are left out (Census names them).
func (s *State) Records() ([]*Record, error) {
	recs, _, err := s.scan()
	return recs, err
}

// badRecord is a record file that cannot be read or parsed.
type badRecord struct {
	name string
	err  error
}

// scan reads every record, sorted by name, and lists the unreadable ones.
func (s *State) scan() ([]*Record, []badRecord, error) {
	ents, err := os.ReadDir(filepath.Join(s.Dir, "records"))
	if err != nil {
		return nil, nil, err
	}
	var out []*Record
	var bad []badRecord
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") {
			continue
		}
		r, err := s.Load(strings.TrimSuffix(n, ".json"))
		if err != nil {
			bad = append(bad, badRecord{strings.TrimSuffix(n, ".json"), err})
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, bad, nil
}
