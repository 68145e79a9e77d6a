package statedir

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/atomicfile"
	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// keyHexLen is the size of the key file: 32 random bytes in hex.
const keyHexLen = 64

// loadKey reads the state dir's digest key, creating it when missing. A
// new key is written to a file of no name yet (or a temporary file),
// fsync'd, linked into place (another childproof creating it first wins)
// and the directory fsync'd, all before it is used: a crash cannot leave
// an empty key behind records made under it. An empty or corrupt key is
// an *failure.Error naming the path and what to do; it is never replaced
// silently (the records made under it would all become untrusted).
// dirfd is the state dir open (Open's walk), -1 when it is not. fresh
// says Open made every directory of the state dir just now: such a state
// dir has no key yet, most often, and the key is created without looking
// first (one that is there after all fails the link, fs.ErrExist, and is
// read as when it was found).
func loadKey(path string, dirfd int, fresh bool) ([]byte, error) {
	if fresh {
		k, err := createKey(path, dirfd)
		if err == nil {
			return k, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("digest key: %w", err)
		}
	}
	for range 3 {
		b, err := ReadFile(path, maxKeySize)
		if err == nil {
			s := strings.TrimSpace(string(b))
			if k, derr := hex.DecodeString(s); derr == nil && len(s) == keyHexLen {
				return k, nil
			}
			// A key being written by another childproof is never seen
			// here: it is linked into place only once complete.
			what := "corrupt"
			if len(s) == 0 {
				what = "empty"
			}
			return nil, &failure.Error{Outcome: outcome.Usage, Msg: fmt.Sprintf("the digest key %s is %s (%d bytes; want %d hex digits)", path, what, len(b), keyHexLen),
				Hint: "records made under it can no longer be authenticated; remove " + path + " to start a new key (ps and stop still work, and show those records as untrusted)"}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			var e *failure.Error
			if errors.As(err, &e) {
				return nil, err
			}
			return nil, fmt.Errorf("digest key: %w", err)
		}
		k, err := createKey(path, dirfd)
		if err == nil {
			return k, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("digest key: %w", err)
		}
		time.Sleep(time.Millisecond)
	}
	return nil, fmt.Errorf("digest key %s: unreadable", path)
}

// createKey writes a new random key at path (dirfd: its directory open,
// -1 when it is not); fs.ErrExist when another process created one
// first.
func createKey(path string, dirfd int) ([]byte, error) {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	if err := linkNewKey(path, []byte(hex.EncodeToString(k)), dirfd); err != nil {
		return nil, err
	}
	return k, nil
}

// linkTempKey is linkNewKey through a named temporary file: written,
// fsync'd, linked as path, removed, and the directory fsync'd.
func linkTempKey(path string, data []byte) error {
	tmp, err := atomicfile.WriteTemp(filepath.Dir(path), ".key.", data, 0o600, true)
	if tmp != "" {
		defer os.Remove(tmp)
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// RecordKey is the key that authenticates records (and rounds and log
// masks), derived from the digest key so that no env digest childproof
// prints can stand for a record's MAC.
func (s *Store) RecordKey() []byte { return s.recKey }

// deriveRecordKey derives RecordKey from the state dir's digest key.
func deriveRecordKey(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("childproof record authentication v1"))
	return m.Sum(nil)
}
