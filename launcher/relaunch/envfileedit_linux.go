package relaunch

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/childproof/childproof/internal/atomicfile"
	"github.com/childproof/childproof/internal/dotenv"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/outcome"
)

// maxEditedEnvFile caps an env file relaunch --in-env-file edits.
const maxEditedEnvFile = 1 << 20

// EnvFileChange is what a relaunch did to an env file (--in-env-file, or
// the restore of an earlier round's edit).
// It is plain data, safe for concurrent use while no one changes it.
type EnvFileChange struct {
	Name string     `json:"name"`
	File string     `json:"file"`
	Line int        `json:"line"`
	How  EnvFileHow `json:"how"`
	// OldDigest is the keyed digest of the value the file assigned before
	// (empty when the line was appended).
	OldDigest string `json:"old_digest,omitempty"`
}

// envFileFile is an env file an envFileSync reads and writes.
type envFileFile struct {
	path     string
	orig     []byte // the file before this relaunch touched it
	cur      []byte
	disk     []byte // what this relaunch last wrote (orig before that)
	written  bool
	mode     os.FileMode
	uid, gid int
}

// newEnvFileSync brings the env files in line with the new round's
// overrides before anything is stopped, in two phases. First (restore) an
// edit of the baseline round that the new round no longer carries
// (--unset, or a --round replayed without it) is undone byte for byte and
// written, so that a lint between the phases judges the chain as the round
// will run it. Then (edits) a --in-env-file name gets its value written into
// its env file, and an edit of a replayed round that is not in effect is
// made again. A file changed by someone else since an edit is not touched
// (an error naming the lines). Each edit is recorded on its override in
// plan; restore puts every file written back as it was (for a relaunch
// that fails).
func newEnvFileSync(s *launcher.State, plan *launcher.RoundPlan, set map[string]string) *envFileSync {
	return &envFileSync{s: s, plan: plan, set: set, files: map[string]*envFileFile{}}
}

// syncEnvFiles runs both phases of newEnvFileSync with the --in-env-file
// names in, and returns what it did and a function that puts every file
// back as it was. On an error every file is as it was.
func syncEnvFiles(s *launcher.State, plan *launcher.RoundPlan, set, in map[string]string) ([]EnvFileChange, func(), error) {
	y := newEnvFileSync(s, plan, set)
	err := y.restorePhase()
	if err == nil {
		err = y.editPhase(in)
	}
	if err != nil {
		y.restore()
		return nil, nil, err
	}
	return y.changes, func() { y.restore() }, nil
}

// restorePhase undoes and writes the baseline's edits that the new round
// does not carry (the first phase of newEnvFileSync).
func (y *envFileSync) restorePhase() error {
	if err := y.undoBaseline(); err != nil {
		return err
	}
	return y.write()
}

// editPhase makes the round's edits, in is the --in-env-file names and
// their files, and writes them (the second phase of newEnvFileSync). A
// baseline edit carried through the first phase whose name is given
// --in-env-file again is undone first and made anew.
func (y *envFileSync) editPhase(in map[string]string) error {
	y.in = in
	for _, n := range slices.Sorted(maps.Keys(in)) {
		if y.undone[n] {
			continue
		}
		if err := y.undo(n); err != nil {
			return err
		}
	}
	if err := y.makeEdits(); err != nil {
		return err
	}
	y.seal()
	return y.write()
}

// envFileSync is one newEnvFileSync under way: the env files read so far
// (each once, by path), the changes made to them, and which edit is in
// effect in which file.
type envFileSync struct {
	s       *launcher.State
	plan    *launcher.RoundPlan
	set, in map[string]string
	files   map[string]*envFileFile
	changes []EnvFileChange
	// undone are the baseline names whose edit was decided (undo).
	undone map[string]bool
	// kept is file -> name of the edit in effect there (makeEdits).
	kept map[string]string
}

// load reads the env file at path, once per sync.
func (y *envFileSync) load(path string) (*envFileFile, error) {
	if f := y.files[path]; f != nil {
		return f, nil
	}
	f, err := readEnvFile(path)
	if err != nil {
		return nil, err
	}
	y.files[path] = f
	return f, nil
}

// undoBaseline undoes the baseline's edits the new round does not keep,
// in name order.
func (y *envFileSync) undoBaseline() error {
	for _, n := range slices.Sorted(maps.Keys(y.plan.Base)) {
		if y.undone[n] {
			continue
		}
		if err := y.undo(n); err != nil {
			return err
		}
	}
	return nil
}

// undo decides the baseline's edit of n: carried (the new round makes the
// same edit, and n is not given --in-env-file again: it stays in effect),
// kept (an edit that recorded no old line, a secret's: the file is left as
// it is), or restored byte for byte. A file changed since the edit is an
// error. An edit no longer in effect is dropped from n's override.
func (y *envFileSync) undo(n string) error {
	plan := y.plan
	c := plan.Base[n].EnvFile
	if c == nil {
		return nil
	}
	if t, ok := plan.Overrides[n]; ok && t.EnvFile != nil && *editKey(t.EnvFile) == *editKey(c) && !hasKey(y.in, n) {
		return nil // carried: the edit stays in effect
	}
	if y.undone == nil {
		y.undone = map[string]bool{}
	}
	y.undone[n] = true
	f, err := y.load(c.File)
	if err != nil {
		return err
	}
	if err := checkUnchanged(y.s, f, c, n); err != nil {
		return err
	}
	how := EnvFileKept
	if c.Old != nil {
		e := dotenv.Edit{Name: n, Offset: c.Offset, Old: *c.Old, New: string(f.cur[c.Offset : c.Offset+c.NewLen])}
		b, err := e.Undo(f.cur)
		if err != nil {
			return fmt.Errorf("%s: %w", c.File, err)
		}
		f.cur = b
		how = EnvFileRestored
	}
	y.changes = append(y.changes, EnvFileChange{Name: n, File: c.File, Line: c.Line, How: how, OldDigest: c.OldDigest})
	if t, ok := plan.Overrides[n]; ok && !hasKey(y.in, n) {
		t.EnvFile = nil
		plan.Overrides[n] = t
	}
	return nil
}

// makeEdits makes the new round's edits, in name order: --in-env-file
// names, and a replayed round's edits not in effect. An edit carried from
// the baseline stays as it is (kept).
func (y *envFileSync) makeEdits() error {
	plan := y.plan
	y.kept = map[string]string{}
	for n, o := range plan.Overrides {
		if o.EnvFile != nil && !hasKey(y.in, n) {
			if b, ok := plan.Base[n]; ok && b.EnvFile != nil && *editKey(b.EnvFile) == *editKey(o.EnvFile) {
				y.kept[o.EnvFile.File] = n
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(plan.Overrides)) {
		o := plan.Overrides[n]
		path, ok := y.in[n]
		if !ok {
			if o.EnvFile == nil || y.kept[o.EnvFile.File] == n {
				continue
			}
			path = o.EnvFile.File // a replayed round's edit, made again
		}
		if err := y.edit(n, path); err != nil {
			return err
		}
	}
	return nil
}

// edit writes n's new value into the env file at path (in memory): the
// line that assigns n is edited, or one is appended. It fails when another
// edit is in effect in that file (one edit per env file) or the file
// cannot be edited. The edit is recorded on n's override: its old value's
// digest, and its old line unless n is a secret.
func (y *envFileSync) edit(n, path string) error {
	plan := y.plan
	o := plan.Overrides[n]
	if other, ok := y.kept[path]; ok && other != n {
		return &launcher.Error{Outcome: outcome.Usage,
			Err:  &EnvFileError{Name: n, File: path, Err: fmt.Errorf("%s already holds the edit of %s (round %d): one edit per env file", path, other, plan.Overrides[other].EnvFile.Round)},
			Path: path, Other: other, Fix: launcher.FixEnvFileHeld,
			Hint: fmt.Sprintf("drop that one first (relaunch.Options.Unset %s), or edit the file by hand", other)}
	}
	f, err := y.load(path)
	if err != nil {
		return err
	}
	before := dotenv.Map(mustEntries(path, f.cur))
	out, e, err := dotenv.SetValue(path, f.cur, n, y.set[n])
	if err != nil {
		return &launcher.Error{Outcome: outcome.Usage, Err: &EnvFileError{Name: n, File: path, Err: fmt.Errorf("cannot edit %s: %w", path, err)}}
	}
	ed := &launcher.EnvFileEdit{File: path, Line: e.Line, Appended: e.Appended, Offset: e.Offset, NewLen: len(e.New)}
	if old, ok := before[n]; ok && !e.Appended {
		ed.OldDigest = y.s.Digest(n, old.Value)
	}
	if !o.Secret {
		old := e.Old
		ed.Old = &old
	}
	f.cur = out
	o.EnvFile = ed
	plan.Overrides[n] = o
	y.kept[path] = n
	how := EnvFileEdited
	if e.Appended {
		how = EnvFileAppended
	}
	y.changes = append(y.changes, EnvFileChange{Name: n, File: path, Line: e.Line, How: how, OldDigest: ed.OldDigest})
	return nil
}

// seal records on each edit in effect the digests of the file it leaves
// (of every file this sync read).
func (y *envFileSync) seal() {
	for n, o := range y.plan.Overrides {
		if o.EnvFile == nil {
			continue
		}
		if f := y.files[o.EnvFile.File]; f != nil {
			o.EnvFile.After, o.EnvFile.AfterLines = fileDigests(y.s, f.cur)
			y.plan.Overrides[n] = o
		}
	}
}

// write writes, in path order, every file changed since it was last
// written or named by a change and not yet written. A write that fails puts
// back those already written (restore).
func (y *envFileSync) write() error {
	for _, p := range slices.Sorted(maps.Keys(y.files)) {
		f := y.files[p]
		named := slices.ContainsFunc(y.changes, func(c EnvFileChange) bool { return c.File == p })
		if bytes.Equal(f.cur, f.disk) && (f.written || !named) {
			continue
		}
		if err := writeEnvFile(f, f.cur); err != nil {
			y.restore()
			return err
		}
		f.disk, f.written = f.cur, true
	}
	return nil
}

// restore puts each file written back as it was before the relaunch
// (unless someone changed it since) and reports whether any was written.
func (y *envFileSync) restore() bool {
	any := false
	for _, p := range slices.Sorted(maps.Keys(y.files)) {
		f := y.files[p]
		if !f.written {
			continue
		}
		any = true
		if cur, err := readEnvFile(f.path); err == nil && bytes.Equal(cur.cur, f.disk) {
			writeEnvFile(f, f.orig)
		}
		f.disk, f.written = f.orig, false
	}
	return any
}

// editKey is the part of an edit that says which edit it is.
func editKey(e *launcher.EnvFileEdit) *[2]string {
	return &[2]string{e.File, e.After}
}

func mustEntries(path string, b []byte) []dotenv.Entry {
	entries, _ := dotenv.Parse(path, b)
	return entries
}

// checkUnchanged fails when f no longer holds what edit c left there,
// naming the lines that differ.
func checkUnchanged(s *launcher.State, f *envFileFile, c *launcher.EnvFileEdit, name string) error {
	round := c.Round
	after, lines := fileDigests(s, f.cur)
	if after == c.After {
		return nil
	}
	var diff []string
	for i := 0; i < max(len(lines), len(c.AfterLines)) && len(diff) < 5; i++ {
		switch {
		case i >= len(lines):
			diff = append(diff, fmt.Sprintf("line %d removed", i+1))
		case i >= len(c.AfterLines):
			diff = append(diff, fmt.Sprintf("line %d added", i+1))
		case lines[i] != c.AfterLines[i]:
			diff = append(diff, fmt.Sprintf("line %d differs", i+1))
		}
	}
	if len(diff) == 0 {
		diff = append(diff, "its bytes differ")
	}
	return &launcher.Error{Outcome: outcome.Usage,
		Msg: fmt.Sprintf("%s changed since round %d wrote %s at line %d (%s): it is not overwritten; nothing was stopped",
			f.path, round, name, c.Line, strings.Join(diff, ", ")),
		Hint: fmt.Sprintf("put %s back as round %d left it, or edit %s at line %d yourself", f.path, round, name, c.Line)}
}

// fileDigests returns the keyed digest of b and of each of its lines.
func fileDigests(s *launcher.State, b []byte) (string, []string) {
	var lines []string
	for i, l := range bytes.SplitAfter(b, []byte{'\n'}) {
		if len(l) == 0 || i >= 10000 {
			break
		}
		lines = append(lines, s.Digest("env-file-line", string(l)))
	}
	return s.Digest("env-file", string(b)), lines
}

func readEnvFile(path string) (*envFileFile, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, &EnvFileError{File: path, Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &launcher.Error{Outcome: outcome.Usage, Err: &EnvFileError{File: path, Err: fmt.Errorf("%s is not a regular file (a symlink, a pipe?): it is not edited", path)}}
	}
	if fi.Size() > maxEditedEnvFile {
		return nil, &launcher.Error{Outcome: outcome.Usage, Err: &EnvFileError{File: path, Err: fmt.Errorf("%s is larger than %d bytes: it is not edited", path, maxEditedEnvFile)}}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &EnvFileError{File: path, Err: err}
	}
	f := &envFileFile{path: path, orig: b, cur: b, disk: b, mode: fi.Mode().Perm(), uid: -1, gid: -1}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		f.uid, f.gid = int(st.Uid), int(st.Gid)
	}
	return f, nil
}

// writeEnvFile replaces f's file with b atomically: a temporary file in
// the same directory with the same mode and owner, fsync'd, renamed over it.
func writeEnvFile(f *envFileFile, b []byte) error {
	t, err := os.CreateTemp(filepath.Dir(f.path), "."+filepath.Base(f.path)+".childproof-*")
	if err != nil {
		return &EnvFileError{File: f.path, Err: err}
	}
	tmp := t.Name()
	_, err = t.Write(b)
	if err == nil {
		err = t.Chmod(f.mode)
	}
	if err == nil && f.uid >= 0 && (f.uid != os.Geteuid() || f.gid != os.Getegid()) {
		err = t.Chown(f.uid, f.gid)
	}
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return &EnvFileError{File: f.path, Err: fmt.Errorf("writing %s: %w", f.path, err)}
	}
	atomicfile.SyncDir(filepath.Dir(f.path))
	return nil
}
