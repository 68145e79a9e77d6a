//go:build unix

package statedir

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/atomicfile"
)

// Migrated reports whether the state dir dir is known to use the Encode
// naming (its LayoutFile is there).
func Migrated(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, LayoutFile))
	return err == nil && fi.Mode().IsRegular()
}

// Migrate renames the files of a state dir of the legacy naming to the
// Encode naming, once: for every record whose file stem is its name's
// legacy form and not its encoding (names with '_' or '.'), the record,
// its logs and mask and its history directory move to the encoded names;
// then LayoutFile is written. A target that already exists is left (and
// the legacy file with it). Locks are not moved (a lock file holds no
// state). It holds the state-wide migration lock (a flock on records/) meanwhile; a state dir
// it cannot write (read-only) is left as it is and read in both namings.
// A record's name is read from its file without authenticating it: a
// rename changes nothing a record says, and every later read
// authenticates the record and checks that it names its launch.
func Migrate(dir string) error {
	if Migrated(dir) {
		return nil
	}
	// The migration lock is a flock on the records directory itself: no
	// file of its own.
	lf, err := os.OpenFile(filepath.Join(dir, RecordsDir), os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer lf.Close()
	for {
		err = unix.Flock(int(lf.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return err
	}
	if Migrated(dir) {
		return nil
	}
	recs := filepath.Join(dir, RecordsDir)
	ents, err := os.ReadDir(recs)
	if err != nil {
		return err
	}
	for _, e := range ents {
		stem, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(stem, ".") || !e.Type().IsRegular() {
			continue
		}
		name, err := recordName(filepath.Join(recs, e.Name()))
		if err != nil || Encode(name) == stem || Legacy(name) != stem {
			continue
		}
		migrateName(dir, stem, Encode(name))
	}
	return writeLayout(dir)
}

// migrateFresh is Migrate of a state dir whose records directory Open
// just made: it holds no record of the legacy naming to move (the
// childproof that writes a record there after the mkdir writes it under
// its encoded name), so LayoutFile is written without the migration
// lock and the listing. It is created in place (O_EXCL, never following
// a link), not through a temporary file and a rename: only its presence
// is read (Migrated, Open), never its contents, so a file cut short by
// a crash says what a whole one says (and this state dir was made in
// that naming). One that is there already (another childproof's
// migrateFresh or Migrate) is left; a state dir that cannot take it is
// read in both namings, as after a Migrate that could not write it. It
// reports whether it created the file (then it is ours, mode 0600 at
// most, made in the checked state dir).
func migrateFresh(dir string) bool {
	fd, err := unix.Open(filepath.Join(dir, LayoutFile), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	unix.Write(fd, []byte(layoutV2))
	unix.Close(fd)
	return true
}

// migrateName moves the files of the legacy stem old to the encoded stem
// enc.
func migrateName(dir, old, enc string) {
	move := func(from, to string) {
		if _, err := os.Lstat(to); err == nil {
			return
		}
		os.Rename(from, to)
	}
	move(filepath.Join(dir, RecordsDir, old+".json"), filepath.Join(dir, RecordsDir, enc+".json"))
	if ents, err := os.ReadDir(filepath.Join(dir, LogsDir)); err == nil {
		for _, e := range ents {
			rest, ok := strings.CutPrefix(e.Name(), old)
			if !ok || !e.Type().IsRegular() || !logSuffix(rest) {
				continue
			}
			move(filepath.Join(dir, LogsDir, e.Name()), filepath.Join(dir, LogsDir, enc+rest))
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, HistoryDir, old)); err == nil && fi.IsDir() {
		move(filepath.Join(dir, HistoryDir, old), filepath.Join(dir, HistoryDir, enc))
	}
}

// logSuffix reports whether rest is what follows a stem in a log file's
// name: ".log", ".log.N" or ".mask".
func logSuffix(rest string) bool {
	if rest == ".log" || rest == ".mask" {
		return true
	}
	n, ok := strings.CutPrefix(rest, ".log.")
	if !ok {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil && n != "" && n[0] != '-' && n[0] != '+'
}

// recordName reads the launch name a record file states: the "name" of
// the first of its (at most three) JSON lines that has one (v2: the
// summary line; v1: the object).
func recordName(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fs.ErrInvalid
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return "", err
	}
	for i, line := range bytes.SplitN(b, []byte{'\n'}, 4) {
		if i == 3 {
			break
		}
		var v struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(line, &v) == nil && v.Name != nil {
			return *v.Name, nil
		}
	}
	if len(b) > 0 {
		var v struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(b, &v) == nil && v.Name != nil {
			return *v.Name, nil
		}
	}
	return "", fs.ErrInvalid
}

// writeLayout writes LayoutFile atomically, through a bare descriptor
// (atomicfile.WriteTemp) and a rename without os.Rename's lstat first:
// only when that rename fails does os.Rename try again, for its error.
func writeLayout(dir string) error {
	tmp, err := atomicfile.WriteTemp(dir, "."+LayoutFile+".", []byte(layoutV2), 0o600, false)
	if tmp == "" {
		return err
	}
	path := filepath.Join(dir, LayoutFile)
	if err == nil && unix.Rename(tmp, path) != nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// CleanTemps removes the temporary files an atomic write left in dir (a
// directory of the state dir) when the writer died between creating and
// renaming them: names starting with prefix ("." for any, ".ENC.json."
// for one launch's record) that are regular files not changed for
// tempAge. A writer that lives renames its file within microseconds; one
// older than tempAge is an orphan.
func CleanTemps(dir, prefix string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if IsTemp(e.Name(), prefix) && e.Type().IsRegular() {
			n += cleanTemp(filepath.Join(dir, e.Name()))
		}
	}
	return n
}

// CleanRecordTemps is CleanTemps of the temporary files of launch name's
// record (the caller holds its lock). A records directory this Store's
// Open made less than tempAge ago is not listed: nothing in it is old
// enough to go.
func (s *Store) CleanRecordTemps(name string) int {
	if slices.Contains(s.made, RecordsDir) && time.Since(s.opened) < tempAge {
		return 0
	}
	return CleanTemps(filepath.Join(s.Dir, RecordsDir), "."+Encode(name)+".json.")
}

// IsTemp reports whether a state dir entry's name is one of an atomic
// write's temporary files starting with prefix.
func IsTemp(name, prefix string) bool {
	return strings.HasPrefix(name, ".") && strings.HasPrefix(name, prefix) && name != "."+LayoutFile && !strings.HasSuffix(name, ".lock")
}

// CleanTemp removes the temporary file path when it is an orphan (see
// CleanTemps); it returns 1 when it did.
func CleanTemp(path string) int { return cleanTemp(path) }

func cleanTemp(path string) int {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) < tempAge {
		return 0
	}
	if os.Remove(path) != nil {
		return 0
	}
	return 1
}

// tempAge is how old a temporary file must be to be taken for an orphan.
const tempAge = 10 * time.Second
