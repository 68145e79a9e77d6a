package statedir

import (
	"bytes"
	"sync"
	"time"

	"github.com/childproof/childproof/verify"
)

// written is what a Store last wrote of each launch's record and round
// files: the bytes, and what they read back as. A file read again that
// holds exactly those bytes reads back as that (the MAC was made from
// the same bytes under the same key: TestSealJSONIsStable, FuzzRecord,
// FuzzRound), so it needs no second authentication and decoding: the
// stop of a launch reads back the record and the round its start wrote.
// Whoever wrote the file since (a `childproof stop` in a shell, a ps
// that noted the worker gone) wrote other bytes, which are read as
// before. It is safe for concurrent use.
type written struct {
	mu      sync.Mutex
	records map[string]wroteRecord
	rounds  map[string]wroteRound
	// made is the round of each launch whose first write made the
	// launch's rounds directory, and when (one per launch).
	made map[string]madeRounds
	// missing is the launches whose rounds directory RoundNumbers just
	// found missing: the next write of a round makes it without another
	// lstat.
	missing map[string]bool
}

// madeRounds is the round whose write made a rounds directory, and when.
type madeRounds struct {
	n  int
	at time.Time
}

// wroteRound is a round file as a Store wrote it, and the round it reads
// back as (a copy of its own, which no caller holds). b is the sealed
// bytes themselves, which no one changes (a copy of them was a round
// file's size per write).
type wroteRound struct {
	path string
	b    []byte
	r    *Round
}

// wroteRecord is a record file as a Store wrote it, and what MarkStopped
// reads of the record it holds.
type wroteRecord struct {
	b            []byte
	started      time.Time
	worker, root verify.Fingerprint
	stopped      *time.Time
}

// wroteRecord notes b, the record file path as sealed from settled.
func (s *Store) wroteRecord(path string, b []byte, settled *Record) {
	s.wrote.mu.Lock()
	defer s.wrote.mu.Unlock()
	if s.wrote.records == nil {
		s.wrote.records = map[string]wroteRecord{}
	}
	// One per launch (path): a Store kept for many launches keeps no more.
	s.wrote.records[path] = wroteRecord{b: b, started: settled.Started, worker: settled.Worker, root: settled.Root, stopped: settled.Stopped}
}

// wroteRound notes b, round file path as sealed from settled (copied: the
// caller keeps changing its round). One per launch: the last round
// written.
func (s *Store) wroteRound(name, path string, b []byte, settled *Round) {
	r := settled.clone()
	s.wrote.mu.Lock()
	defer s.wrote.mu.Unlock()
	if s.wrote.rounds == nil {
		s.wrote.rounds = map[string]wroteRound{}
	}
	s.wrote.rounds[name] = wroteRound{path: path, b: b, r: r}
}

// roundWritten returns, when b is what this Store last wrote as the round
// file path of launch name, the round it reads back as: a copy of its
// own to the caller, who may change it (an end added, UpdateRound); nil
// otherwise. That copy costs a few map and slice copies where decoding
// the file again cost a JSON decode of the worker's environment digests
// (the round Stop ends).
func (s *Store) roundWritten(name, path string, b []byte) *Round {
	s.wrote.mu.Lock()
	w, ok := s.wrote.rounds[name]
	s.wrote.mu.Unlock()
	if !ok || w.path != path || !bytes.Equal(w.b, b) {
		return nil
	}
	return w.r.clone()
}

// loadLaunch is Load for MarkStopped: the record of launch name, of
// which only the launch it describes (Started, Worker, Root) and Stopped
// are set when its file holds what this Store last wrote there.
func (s *Store) loadLaunch(name string) (*Record, error) {
	path := s.recordPath(name)
	b, bp, err := readTemp(path, MaxRecordSize)
	defer stateBufs.Put(bp, b)
	if err != nil {
		// Missing (a legacy name's file) or unreadable: as Load says.
		return s.Load(name)
	}
	s.wrote.mu.Lock()
	w, ok := s.wrote.records[path]
	s.wrote.mu.Unlock()
	if ok && bytes.Equal(b, w.b) {
		return &Record{Name: name, Started: w.started, Worker: w.worker, Root: w.root, Stopped: w.stopped}, nil
	}
	return s.parseRecord(name, path, bytes.Clone(b))
}

// loadLaunchHeld is loadLaunch by a caller that has held the launch's
// lock since this Store last wrote its record (MarkStoppedHeld): what
// that write described, without reading the file; loadLaunch where this
// Store wrote none.
func (s *Store) loadLaunchHeld(name string) (*Record, error) {
	s.wrote.mu.Lock()
	w, ok := s.wrote.records[s.recordPath(name)]
	s.wrote.mu.Unlock()
	if !ok {
		return s.loadLaunch(name)
	}
	return &Record{Name: name, Started: w.started, Worker: w.worker, Root: w.root, Stopped: w.stopped}, nil
}

// madeRounds notes that the write of round n of launch name made the
// launch's rounds directory.
func (s *Store) madeRounds(name string, n int) {
	s.wrote.mu.Lock()
	defer s.wrote.mu.Unlock()
	if s.wrote.made == nil {
		s.wrote.made = map[string]madeRounds{}
	}
	s.wrote.made[name] = madeRounds{n: n, at: time.Now()}
}

// noteRoundsMissing notes (missing) or forgets that RoundNumbers found
// the rounds directory of launch name missing.
func (s *Store) noteRoundsMissing(name string, missing bool) {
	s.wrote.mu.Lock()
	defer s.wrote.mu.Unlock()
	if !missing {
		delete(s.wrote.missing, name)
		return
	}
	if s.wrote.missing == nil {
		s.wrote.missing = map[string]bool{}
	}
	s.wrote.missing[name] = true
}

// takeRoundsMissing reports whether RoundNumbers found the rounds
// directory of launch name missing since the last write of a round, and
// forgets it.
func (s *Store) takeRoundsMissing(name string) bool {
	s.wrote.mu.Lock()
	defer s.wrote.mu.Unlock()
	m := s.wrote.missing[name]
	delete(s.wrote.missing, name)
	return m
}
