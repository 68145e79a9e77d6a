package launcher

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/childproof/childproof/redact"
)

// secretDigests returns a keyed digest of each secret value of set (and
// of its trimmed form), under its name, without duplicates.
func (s *State) secretDigests(set *redact.Set) []RecordSecret {
	var out []RecordSecret
	seen := map[RecordSecret]bool{}
	set.Each(func(name, value string) {
		for _, v := range []string{value, strings.TrimSpace(value)} {
			if v == "" {
				continue
			}
			rs := RecordSecret{Name: name, Digest: s.Digest(name, v)}
			if !seen[rs] {
				seen[rs] = true
				out = append(out, rs)
			}
		}
	})
	return out
}

// logMask is written beside a launch's log as the launch starts: the
// keyed digests of its secrets, so that `logs` masks the log even of a
// launch that failed and left no record.
type logMask struct {
	Name    string         `json:"name"`
	Secrets []RecordSecret `json:"secrets"`
	MAC     string         `json:"mac,omitempty"`
}

func (s *State) logMaskPath(name string) string {
	return s.files.Mask(name)
}

func (s *State) logMaskMAC(m logMask) string {
	m.MAC = ""
	b, _ := json.Marshal(m)
	h := hmac.New(sha256.New, s.recordKey())
	h.Write([]byte("childproof log mask v1\x00"))
	h.Write(b)
	return "hmac-sha256:" + hex.EncodeToString(h.Sum(nil))
}

// saveLogMask writes the log mask of launch name.
func (s *State) saveLogMask(name string, secrets *redact.Set) error {
	if s.keyErr != nil {
		return s.keyErr
	}
	m := logMask{Name: name, Secrets: s.secretDigests(secrets)}
	m.MAC = s.logMaskMAC(m)
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	// The same secrets as the last launch of name (a relaunch, a rerun):
	// the mask on disk, written and fsync'd then, is this one already.
	if old, err := readStateFile(s.logMaskPath(name), maxRecordSize); err == nil && bytes.Equal(old, b) {
		return nil
	}
	return writeAtomic(s.logMaskPath(name), b)
}

// LogMasker returns matchers for the secrets of the last launch of name
// (from its log mask), for masking its log; an empty set when there is no
// mask or it fails authentication.
func (s *State) LogMasker(name string) *redact.Set {
	set := redact.New()
	if s.keyErr != nil {
		return set
	}
	b, err := readStateFile(s.logMaskPath(name), maxRecordSize)
	if err != nil {
		return set
	}
	var m logMask
	if json.Unmarshal(b, &m) != nil || m.Name != name || !hmac.Equal([]byte(m.MAC), []byte(s.logMaskMAC(m))) {
		return set
	}
	for _, sec := range m.Secrets {
		set.AddMatcher(sec.Name, func(v string) bool { return s.Digest(sec.Name, v) == sec.Digest })
	}
	return set
}
