package statedir

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/childproof/childproof/redact"
)

// SecretDigests returns what the record and the log mask keep of set's
// secrets: a keyed digest of each value (and of its trimmed form), under
// its name, with the parts it occurs in, without duplicates. Never a
// value.
func (s *Store) SecretDigests(set *redact.Set) []RecordSecret {
	var out []RecordSecret
	type key struct{ name, digest string }
	at := map[key]int{}
	for _, sec := range set.Secrets() {
		for _, v := range []string{sec.Value, strings.TrimSpace(sec.Value)} {
			if v == "" {
				continue
			}
			d := s.Digest(sec.Name, v)
			i, ok := at[key{sec.Name, d}]
			if !ok {
				i = len(out)
				at[key{sec.Name, d}] = i
				out = append(out, RecordSecret{Name: sec.Name, Digest: d})
			}
			// The same value under the same name (an argv element secret
			// by provenance, and by value): one digest, every occurrence.
			for _, o := range sec.Occurs {
				if !slices.Contains(out[i].Occurs, o.Part) {
					out[i].Occurs = append(out[i].Occurs, o.Part)
				}
			}
		}
	}
	return out
}

// logMask is written beside a launch's log as the launch starts: the
// keyed digests of its secrets, so that `logs` masks the log even of a
// launch that failed and left no record. A launch without secrets writes
// none where there is none (no mask masks nothing, as an empty one).
type logMask struct {
	Name    string         `json:"name"`
	Secrets []RecordSecret `json:"secrets"`
	MAC     string         `json:"mac,omitempty"`
}

func (s *Store) logMaskPath(name string) string {
	return s.Files.Mask(name)
}

func (s *Store) logMaskMAC(m logMask) string {
	m.MAC = ""
	b, _ := json.Marshal(m)
	return s.logMaskMACOf(b)
}

// logMaskMACOf is logMaskMAC of a mask's JSON b (MAC empty).
func (s *Store) logMaskMACOf(b []byte) string { return s.recordMAC("childproof log mask v1\x00", b) }

// SaveLogMask writes the log mask of launch name, fsync'd.
func (s *Store) SaveLogMask(name string, secrets *redact.Set) error {
	return s.SaveLogMaskFor(name, secrets, true)
}

// SaveLogMaskFor writes the log mask of launch name, fsync'd when the
// launch is detached; nothing when secrets is empty and name has no
// mask yet. A foreground launch's mask is not, as its log is
// not: a power loss that undid the mask's rename could leave at most a
// log written by the same masking reader, which never holds a secret.
func (s *Store) SaveLogMaskFor(name string, secrets *redact.Set, detached bool) error {
	if s.KeyErr() != nil {
		return s.KeyErr()
	}
	m := logMask{Name: name, Secrets: s.SecretDigests(secrets)}
	old, rerr := ReadFile(s.logMaskPath(name), MaxRecordSize)
	if len(m.Secrets) == 0 && errors.Is(rerr, fs.ErrNotExist) {
		// Nothing to mask and no mask of an earlier launch to replace
		// (a fresh state dir, as each launchertest.Start's; or no launch
		// of name ever had a secret): no mask reads as a mask of no
		// secret (LogMaskSecrets), so none is written.
		return nil
	}
	// Marshalled once: the file is the JSON the MAC covers with the MAC
	// added.
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(withMAC(b, s.logMaskMACOf(b)), '\n')
	// The same secrets as the last launch of name (a relaunch, a rerun):
	// the mask on disk, written then, is this one already.
	if rerr == nil && bytes.Equal(old, b) {
		return nil
	}
	return writeStateFile(s.logMaskPath(name), b, detached)
}

// LogMaskSecrets returns the secrets of the last launch of name, by their
// digests (from its log mask), for masking its log; none when there is no
// mask or it fails authentication.
func (s *Store) LogMaskSecrets(name string) []redact.Secret {
	if s.KeyErr() != nil {
		return nil
	}
	b, err := ReadFile(s.logMaskPath(name), MaxRecordSize)
	if err != nil {
		return nil
	}
	var m logMask
	if json.Unmarshal(b, &m) != nil || m.Name != name || !hmac.Equal([]byte(m.MAC), []byte(s.logMaskMAC(m))) {
		return nil
	}
	var out []redact.Secret
	for _, sec := range m.Secrets {
		out = append(out, redact.Secret{Name: sec.Name, Digest: sec.Digest})
	}
	return out
}
