//go:build linux

package statedir

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
)

// RoundPath is the file of round n of launch name.
func (s *Store) RoundPath(name string, n int) string {
	return filepath.Join(s.RoundsDir(name), fmt.Sprintf("%06d.json", n))
}

// RoundNumbers lists the round numbers of launch name, ascending.
func (s *Store) RoundNumbers(name string) ([]int, error) {
	dir := s.RoundsDir(name)
	ok, err := checkEntry(dir, DirType)
	s.noteRoundsMissing(name, err == nil && !ok)
	if err != nil || !ok {
		// No directory: no rounds (a first run), without a listing.
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history of %q: %w", name, err)
	}
	var out []int
	for _, e := range ents {
		base, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(base, ".") {
			continue
		}
		if n, err := strconv.Atoi(base); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// LoadRound reads round n of launch name. A missing round wraps fs.ErrNotExist.
func (s *Store) LoadRound(name string, n int) (*Round, error) {
	// A rounds directory this Store made for this very round moments ago
	// (in the history directory Open checked, under the launch lock) is
	// the one it made: not looked at again (as KeepRoundLog does not).
	if !s.roundsMadeFor(name, n) {
		if err := CheckEntry(s.RoundsDir(name), DirType); err != nil {
			return nil, err
		}
	}
	path := s.RoundPath(name, n)
	b, bp, err := readTemp(path, MaxRoundFile)
	defer stateBufs.Put(bp, b)
	if err != nil {
		return nil, fmt.Errorf("round %d of %q: %w", n, name, err)
	}
	if r := s.roundWritten(name, path, b); r != nil && r.N == n && r.Name == name && r.MAC != "" {
		// What this Store sealed there: it authenticates (written), and
		// reads back as the round it sealed, neither decoded nor its MAC
		// computed again.
		return r, nil
	}
	return s.parseRound(name, n, bytes.Clone(b))
}

// parseRound decodes and authenticates the bytes of round n of name.
func (s *Store) parseRound(name string, n int, b []byte) (*Round, error) {
	var r Round
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("round %d of %q: %w", n, name, err)
	}
	why := ""
	switch want, err := s.roundMAC(&r); {
	case s.KeyErr() != nil:
		why = s.KeyErr().Error()
	case r.MAC == "":
		why = "it has no MAC"
	case err != nil || !hmac.Equal([]byte(want), []byte(r.MAC)):
		why = "its MAC does not match its contents"
	case r.N != n || r.Name != name:
		why = fmt.Sprintf("it says it is round %d of %q", r.N, r.Name)
	}
	if why != "" {
		return nil, &failure.Error{Outcome: outcome.UntrustedRecord, Err: ErrUntrusted,
			Msg:  fmt.Sprintf("round %d of %q fails authentication (%s)", n, name, why),
			Hint: "childproof replays only rounds it wrote under this state dir's key; remove " + s.RoundPath(name, n)}
	}
	return &r, nil
}

// sealRound sets r.MAC and returns the round file's bytes: r's JSON,
// indented. The JSON the MAC covers is marshalled once and is the file's
// too, with the MAC added as its last member (a round is sealed three
// times per start and stop).
func (s *Store) sealRound(r *Round) ([]byte, error) {
	b, _, err := s.sealRoundSettled(r)
	return b, err
}

// sealRoundSettled is sealRound, also returning the round as its file
// reads back (settledJSON; MAC set): r itself, unless JSON changed a
// value of it (then a copy that shares r's slices, maps and pointers).
// The JSON is written once by the hand encoder (marshalSealed's), its
// MAC added and indented in reused buffers, and copied out once; a round
// that it does not take, or that JSON would change (invalid UTF-8: its
// encoding has a \ufffd), is sealed by sealRoundRoundTrip.
func (s *Store) sealRoundSettled(r *Round) ([]byte, *Round, error) {
	sc := sealScratches.Get().(*sealScratch)
	defer putSealScratch(sc)
	mac := r.MAC
	r.MAC = ""
	w := jw{b: sc.b[:0]}
	ok := w.round(r)
	b := w.b
	sc.b = b
	if !ok || bytes.Contains(b, []byte(`\ufffd`)) {
		r.MAC = mac
		return s.sealRoundRoundTrip(r)
	}
	r.MAC = s.roundMACOf(b)
	sc.tmp = appendMAC(sc.tmp[:0], b, r.MAC)
	sc.ind = append(indentJSON(sc.ind[:0], sc.tmp), '\n')
	return bytes.Clone(sc.ind), r, nil
}

// sealRoundRoundTrip is sealRoundSettled by way of settledJSON.
func (s *Store) sealRoundRoundTrip(r *Round) ([]byte, *Round, error) {
	c := *r
	c.MAC = ""
	b, settled, err := settledJSON(&c, false)
	if err != nil {
		return nil, nil, err
	}
	r.MAC = s.roundMACOf(b)
	settled.MAC = r.MAC
	if settled != &c {
		// A value JSON changed (invalid UTF-8): the file is r's own
		// encoding, which differs from the settled one the MAC covers.
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return nil, nil, err
		}
		return append(b, '\n'), settled, nil
	}
	return append(indentJSON(nil, withMAC(b, r.MAC)), '\n'), settled, nil
}

// indentJSON appends src, JSON as json.Marshal writes it (compact, valid),
// to dst as json.Indent(dst, src, "", "  ") does: a newline and two
// spaces a level after an opening bracket (none in an empty object or
// array) and a comma, ": " after a colon, a newline before a closing
// bracket. json.Indent's scanner checks every byte of what Marshal
// wrote; this walks it once, telling strings apart by their quotes.
func indentJSON(dst, src []byte) []byte {
	depth, open, inString := 0, false, false
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, "  "...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			newline()
		}
		if inString {
			dst = append(dst, c)
			switch c {
			case '\\':
				i++
				dst = append(dst, src[i])
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			dst = append(dst, c)
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				newline()
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// roundMAC is the MAC of a round file: HMAC-SHA256 under the record key
// over its JSON with MAC empty (roundJSON), with a domain prefix of its
// own.
func (s *Store) roundMAC(r *Round) (string, error) {
	c := *r
	c.MAC = ""
	b, err := roundJSON(&c, false)
	if err != nil {
		return "", err
	}
	return s.roundMACOf(b), nil
}

// roundMACOf is roundMAC of a round's JSON b (MAC empty).
func (s *Store) roundMACOf(b []byte) string { return s.recordMAC("childproof round v1\x00", b) }

// roundJSON is c's JSON as settledJSON reads it: a round is sealed three
// times and checked twice per start and stop.
func roundJSON(c *Round, roundTrip bool) ([]byte, error) {
	b, _, err := settledJSON(c, roundTrip)
	return b, err
}

// Rounds reads every round of launch name, ascending. Unreadable rounds
// are left out and named in the error (the readable ones are returned).
func (s *Store) Rounds(name string) ([]*Round, error) {
	ns, err := s.RoundNumbers(name)
	if err != nil {
		return nil, err
	}
	var out []*Round
	var errs []error
	for _, n := range ns {
		r, err := s.LoadRound(name, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// SaveRound writes r atomically, mode 0600; sync also fsyncs it (the
// launching version skips that: it guards against childproof's own
// death, not the machine's, and sits on the launch's hot path).
func (s *Store) SaveRound(r *Round, sync bool) error {
	return s.saveRound(r, sync, false)
}

// saveRound is SaveRound; dirChecked says the caller checked the rounds
// directory just now. A rounds directory this Store made for this very
// round moments ago (roundsMadeFor) is not looked at again either: the
// round's later writes (finished, ended) go beside its first.
func (s *Store) saveRound(r *Round, sync, dirChecked bool) error {
	if s.KeyErr() != nil {
		return fmt.Errorf("history: %w", s.KeyErr())
	}
	missing := s.takeRoundsMissing(r.Name)
	madeHere := !dirChecked && s.roundsMadeFor(r.Name, r.N)
	if !dirChecked && !madeHere {
		made, err := makeRoundsDir(s.RoundsDir(r.Name), missing)
		if err != nil {
			return err
		}
		if made {
			s.madeRounds(r.Name, r.N)
		}
	}
	b, settled, err := s.sealRoundSettled(r)
	if err != nil {
		return err
	}
	path := s.RoundPath(r.Name, r.N)
	err = writeStateFile(path, b, sync)
	if madeHere && errors.Is(err, fs.ErrNotExist) {
		// Removed since it was made: made again, as for a first write.
		if _, err = makeRoundsDir(s.RoundsDir(r.Name), false); err == nil {
			err = writeStateFile(path, b, sync)
		}
	}
	if err != nil {
		return err
	}
	s.wroteRound(r.Name, path, b, settled)
	return nil
}

// makeRoundsDir makes sure the directory of a launch's rounds is there
// and is ours: mode 0700 when made, else checked by CheckDir. One
// lstat where it is (the round's later writes), a mkdir where it is not:
// a directory the mkdir just made in the checked history directory is
// ours and mode 0700 at most (as Open's new directories). An lstat that
// fails otherwise takes the mkdir-then-check path, for its errors. made
// says this mkdir made it. missing says an lstat (RoundNumbers') just
// found it missing: the mkdir comes without another; where it fails
// because the directory is there after all, CheckDir checks it, as when
// the lstat had found it.
func makeRoundsDir(dir string, missing bool) (made bool, err error) {
	var st unix.Stat_t
	err = unix.ENOENT
	if !missing {
		err = unix.Lstat(dir, &st)
	}
	if err == nil {
		return false, checkDirStat(dir, &st)
	}
	merr := os.Mkdir(dir, 0o700)
	if merr == nil && errors.Is(err, unix.ENOENT) {
		return true, nil
	}
	if merr != nil && !errors.Is(merr, fs.ErrExist) {
		return false, fmt.Errorf("history: %w", merr)
	}
	return merr == nil, CheckDir(dir, false)
}

// UpdateRound applies f to round n of name under the history lock and
// saves it (fsync'd) when f returns true.
func (s *Store) UpdateRound(name string, n int, f func(*Round) bool) error {
	return s.updateRound(name, n, true, f)
}

// updateRound is UpdateRound, fsync'd only when durable.
func (s *Store) updateRound(name string, n int, durable bool, f func(*Round) bool) error {
	unlock, err := s.LockHistory(name)
	if err != nil {
		return err
	}
	defer unlock()
	r, err := s.LoadRound(name, n)
	if err != nil {
		return err
	}
	if !f(r) {
		return nil
	}
	// LoadRound just checked the directory (CheckEntry) and read the
	// round there, under the history lock: the round goes back beside it
	// without another lstat of it.
	return s.saveRound(r, durable, true)
}

// LockHistory takes the history lock of name (waiting for it): every
// read-modify-write of a round holds it.
func (s *Store) LockHistory(name string) (func(), error) {
	// A bare descriptor (OpenFile's check): it is only locked and
	// closed.
	fd, _, err := openStateFD(s.Files.HistoryLock(name), unix.O_RDWR|unix.O_CREAT, 0o600)
	if err != nil {
		return nil, fmt.Errorf("history lock: %w", err)
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("history lock: %w", err)
	}
	var once sync.Once
	return func() { once.Do(func() { unix.Close(fd) }) }, nil
}

// KeepRoundLog hard-links the launch's log as the round's kept log and
// removes the kept logs of older rounds beyond keep (the launch's log {
// keep }: this round's log and the keep before it stay, as NAME.log and
// NAME.log.1 … NAME.log.keep do).
func (s *Store) KeepRoundLog(name string, n, keep int) string {
	dir := s.RoundsDir(name)
	kept := filepath.Join(dir, fmt.Sprintf("%06d.log", n))
	// The link first: a new round has no kept log yet. Where the link
	// fails (one is there), the old one goes first, as os.Remove does it,
	// and the link is made again, with os.Link's errors.
	if unix.Link(s.LogPath(name), kept) != nil {
		if err := unix.Unlink(kept); err != nil && !errors.Is(err, unix.ENOENT) {
			os.Remove(kept)
		}
		if err := os.Link(s.LogPath(name), kept); err != nil {
			return ""
		}
	}
	if s.roundsMadeFor(name, n) {
		// This Store made the directory for this very round (under the
		// launch lock): nothing but this round's files is in it, no
		// older kept log to list and remove.
		return kept
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if m, ok := keptLogNumber(e.Name()); ok && m < n-keep {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return kept
}

// roundsMadeFor reports whether the rounds directory of launch name was
// made by this Store's write of round n, less than madeFresh ago (as
// CheckWritable trusts Open's new directories for that long only).
func (s *Store) roundsMadeFor(name string, n int) bool {
	s.wrote.mu.Lock()
	defer s.wrote.mu.Unlock()
	m, ok := s.wrote.made[name]
	return ok && m.n == n && time.Since(m.at) < madeFresh
}

// keptLogNumber is the round number m of a kept log's file name: the
// names fmt.Sscanf(name, "%06d.log", &m) reads and fmt.Sprintf("%06d.log",
// m) writes back (six digits, or a minus and five digits not all zero),
// without fmt's scanner for each entry of the directory.
func keptLogNumber(name string) (int, bool) {
	stem, ok := strings.CutSuffix(name, ".log")
	if !ok || len(stem) != 6 {
		return 0, false
	}
	digits, neg := stem, stem[0] == '-'
	if neg {
		digits = stem[1:]
	}
	m := 0
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return 0, false
		}
		m = m*10 + int(c-'0')
	}
	if neg {
		if m == 0 {
			return 0, false
		}
		m = -m
	}
	return m, true
}

// SetEnd records end as r's end: its uptime from r's start, r's kept log
// and the digest of that log's last lines.
func (s *Store) SetEnd(r *Round, end *RoundEnd) {
	end.UptimeSeconds = end.At.Sub(r.Started).Seconds()
	end.Log = r.Log
	s.tailDigest(end, r.Log)
	r.End = end
}

// tailDigest fills the end's digest of the log's last lines.
func (s *Store) tailDigest(e *RoundEnd, log string) {
	if log == "" {
		return
	}
	lines := Tail(log, 10)
	e.LastLines = len(lines)
	if len(lines) > 0 {
		e.TailDigest = s.Digest("log-tail", strings.Join(lines, "\n"))
	}
}

// SetStatus fills How, ExitStatus and Signal from a wait status.
func (e *RoundEnd) SetStatus(ws syscall.WaitStatus) {
	switch {
	case ws.Signaled():
		e.How, e.Signal = EndSignaled, unix.SignalName(ws.Signal())
	case ws.Exited():
		c := ws.ExitStatus()
		e.How, e.ExitStatus = EndExited, &c
	default:
		e.How = EndGone
	}
}

// EndRound records how the round's worker ended, as the foreground
// supervisor (seen "supervisor") or Stop saw it. A supervisor's status
// wins over an earlier finding; the stopper's note is kept. The round
// file is fsync'd for a detached launch only: a foreground launch's
// processes end with their starter, and with a power loss.
func (s *Store) EndRound(name string, n int, started time.Time, end *RoundEnd, detached bool) {
	if n == 0 {
		return
	}
	s.updateRound(name, n, detached, func(r *Round) bool {
		if r.End != nil && r.End.Seen == SeenSupervisor {
			return false
		}
		if r.End != nil && end.StoppedBy == "" {
			end.StoppedBy = r.End.StoppedBy
		}
		s.SetEnd(r, end)
		if r.Log == "" {
			// No kept log: the live one is still this round's.
			end.Log = s.LogPath(name)
			s.tailDigest(end, end.Log)
		}
		return true
	})
}

// NoteGone records, when its end is not known yet, that the worker of
// round round of launch name was found gone now (Census calls it). A record's round file
// is read only for a gone worker.
//
// ps calls it for every gone record on every run: a round whose file
// already holds an end (the key "end" with an object: inside a JSON
// string a quote is escaped, so no value can look like it) is left at
// once, without decoding and authenticating it — that was 0.11 ms a
// record, 137 ms for 900 such records. At worst a file someone forged
// with an end is not noted; it is untrusted anyway.
func (s *Store) NoteGone(name string, round int) {
	if round == 0 {
		return
	}
	b, err := ReadFile(s.RoundPath(name, round), MaxRoundFile)
	if err != nil || bytes.Contains(b, []byte(`"end": {`)) || bytes.Contains(b, []byte(`"end":{`)) {
		return
	}
	r, err := s.parseRound(name, round, b)
	if err != nil || r.End != nil || r.Outcome != RoundVerified {
		return
	}
	end := &RoundEnd{At: time.Now().UTC(), How: EndGone, Seen: SeenCensus, UptimeAtMost: true}
	s.UpdateRound(name, round, func(r *Round) bool {
		if r.End != nil {
			return false
		}
		s.SetEnd(r, end)
		return true
	})
}

// Launching reports whether a launch of name is under way: its launch
// lock is held. A round still "launching" while none is was cut short:
// childproof died mid-launch.
func (s *Store) Launching(name string) bool {
	l, err := s.Lock(name)
	if err != nil {
		return errors.Is(err, failure.ErrLocked)
	}
	l.Unlock()
	return false
}

// LastVerifiedRound returns the newest round of name whose worker was
// verified (with its environment digests), or nil.
func (s *Store) LastVerifiedRound(name string) *Round {
	rounds, _ := s.Rounds(name)
	for i := len(rounds) - 1; i >= 0; i-- {
		if r := rounds[i]; r.Outcome == RoundVerified && len(r.WorkerEnv) > 0 {
			return r
		}
	}
	return nil
}
