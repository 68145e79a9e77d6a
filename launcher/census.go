package launcher

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// CensusEntry is one recorded launch as it stands now.
type CensusEntry struct {
	Name string `json:"name"`
	// Status is where the launch stands.
	Status   CensusStatus       `json:"status"`
	Worker   verify.Fingerprint `json:"worker"`
	Started  time.Time          `json:"started"`
	Detached bool               `json:"detached"`
	Ports    []CensusPort       `json:"ports"`
	Log      string             `json:"log"`
	SpecPath string             `json:"spec_path,omitempty"`
	// Pending is set when the launch was never verified: it is under way,
	// or its childproof died mid-launch. Worker is then the launch root.
	Pending bool `json:"pending,omitempty"`
	// Restarts and LastExit are the record's (restart policies).
	Restarts int  `json:"restarts,omitempty"`
	LastExit *int `json:"last_exit,omitempty"`
	// Error says why a record is unreadable (Status "unknown").
	Error string `json:"error,omitempty"`
	// Round is the recorded launch's round in the history (0: none).
	Round int `json:"round,omitempty"`
	// Members are the live processes left of a launch whose worker is
	// gone (its cgroup's, or those carrying its marker): the launch is
	// still alive, and stop ends them. Note says so in words.
	Members []int  `json:"members,omitempty"`
	Note    string `json:"note,omitempty"`
	// Workers is the number of workers of a multi-process job (worker {
	// count = N }); 0 for one. Worker is the first.
	Workers int `json:"workers,omitempty"`
}

// CensusPort says who holds a recorded port now.
type CensusPort struct {
	Number  int    `json:"number"`
	Address string `json:"address"`
	// Holder is "worker", "none", or a census line of another holder.
	Holder    string `json:"holder"`
	HolderPid int    `json:"holder_pid,omitempty"`
}

// CensusStatus is where a recorded launch stands (CensusEntry.Status;
// its string is ps's STATUS and the JSON's "status").
type CensusStatus string

// The census statuses.
const (
	StatusAlive  = CensusStatus(verify.Alive)
	StatusGone   = CensusStatus(verify.Gone)
	StatusReused = CensusStatus(verify.Reused)
	// StatusUnknown: an unreadable record.
	StatusUnknown = CensusStatus(verify.Unknown)
	// StatusStopped: childproof stopped it (listed by Census with all).
	StatusStopped CensusStatus = "stopped"
	// StatusUntrusted: a record that fails authentication, never checked
	// against the kernel, never acted on; Worker and Started are then
	// what the record claims, unverified.
	StatusUntrusted CensusStatus = "untrusted"
	// StatusUnverified: a tree that runs but was never verified (a launch
	// under way, or one whose childproof died mid-launch).
	StatusUnverified CensusStatus = "unverified"
)

// Census checks every record of st; stopped ones only when all is set.
func Census(p proc.FS, st *State, all bool) ([]CensusEntry, error) {
	recs, bad, err := st.summaries()
	if err != nil {
		return nil, err
	}
	// Every listener at once (one sock_diag dump), and the holders that
	// are not their record's worker named after one pass over /proc.
	byPort, lerr := sockdiag.ByPort(p.Root)
	inodes := map[uint64]bool{}
	sockets := socketCache{}
	var later []namedLater
	out := make([]CensusEntry, 0, len(bad)+len(recs))
	// Records whose worker is gone and that have a marker but no cgroup:
	// their members are found in one pass over /proc, below.
	marked := map[string]int{}
	// Entries with a recorded log relay, by index: a gone launch's relay
	// is ended, below, once its members are known.
	relays := map[int]*verify.Fingerprint{}
	// Entries of launches gone with their end unrecorded (no stop, no
	// supervisor saw it): ps says why their status is unknown, below.
	unrecorded := map[int]bool{}
	for _, b := range bad {
		status := StatusUnknown
		e := CensusEntry{Name: b.name, Ports: []CensusPort{}, Error: b.err.Error()}
		if b.untrusted() {
			status = StatusUntrusted
			// What the record claims, shown as such: never checked, never acted on.
			var c *UntrustedClaim
			if errors.As(b.err, &c) {
				e.Worker, e.Started = c.Worker, c.Started
			}
		}
		e.Status = status
		out = append(out, e)
	}
	for _, r := range recs {
		e := CensusEntry{Name: r.Name, Worker: r.Worker, Started: r.Started, Detached: r.Detached, Log: r.Log, SpecPath: r.SpecPath, Ports: []CensusPort{}, Pending: r.Pending,
			Restarts: r.Restarts, LastExit: r.LastExit}
		e.Round, e.Workers = r.Round, r.Workers
		live := r.Worker.Check(p)
		e.Status = CensusStatus(live)
		if (live == verify.Gone || live == verify.Reused) && !r.Pending && r.Stopped == nil {
			st.noteGone(r.Name, r.Round)
		}
		if live != verify.Alive && live != verify.Unknown {
			// Empty cgroups of a launch that ended without childproof
			// (a SIGKILLed supervisor, a pid-reuse stop) go now.
			st.sweepCgroups(r.Name, r.Cgroup)
		}
		if live == verify.Alive && r.Relay != nil && r.Relay.Check(p) != verify.Alive {
			// Said, not silent: the relay was SIGKILLed (or OOM-killed).
			e.Note = fmt.Sprintf("its log relay (pid %d) is gone: the tree's output is no longer logged, and its next write to stdout or stderr fails with EPIPE (SIGPIPE ends a worker that does not ignore it)", r.Relay.Pid)
		}
		if r.Pending && live == verify.Alive {
			// Its tree runs but was never verified: not "alive", which
			// scripts read as verified and running.
			e.Status = StatusUnverified
		}
		if r.Stopped != nil && live != verify.Alive {
			if !all {
				continue
			}
			e.Status = StatusStopped
		}
		if r.Stopped == nil && live != verify.Alive && live != verify.Unknown {
			if cg := trustedCgroup(r.Cgroup, r.Name); cg != "" {
				rec := &Record{Name: r.Name, Cgroup: r.Cgroup}
				e.setMembers(liveMembers(p, rec))
			} else if r.Marker != "" && !cgroupRemoved(r.Cgroup, r.Name) {
				// (A removed cgroup had no member left: cgroupRemoved.)
				marked[r.Marker] = len(out)
			}
		}
		if r.Relay != nil {
			relays[len(out)] = r.Relay
		}
		if r.Stopped == nil && !r.Pending && (live == verify.Gone || live == verify.Reused) {
			unrecorded[len(out)] = true
		}
		for _, rp := range r.Ports {
			cp := CensusPort{Number: rp.Number, Address: rp.Address, Holder: "none"}
			if lerr != nil {
				cp.Holder = fmt.Sprintf("unknown: %v", lerr)
			}
			// The recorded worker's own fds first; a listener it does not
			// hold is named after one scan of every fd table, below.
			var others []sockdiag.Listener
			for _, l := range byPort[rp.Number] {
				if live == verify.Alive {
					if sockets.has(p, r.Worker.Pid, l.Inode) {
						cp.Holder, cp.HolderPid, others = "worker", r.Worker.Pid, nil
						break
					}
				}
				others = append(others, l)
			}
			if len(others) > 0 {
				// The last holder is the one shown.
				l := others[len(others)-1]
				inodes[l.Inode] = true
				later = append(later, namedLater{entry: len(out), port: len(e.Ports), l: l})
			}
			e.Ports = append(e.Ports, cp)
		}
		out = append(out, e)
	}
	if len(marked) > 0 {
		ms := make([]string, 0, len(marked))
		for m := range marked {
			ms = append(ms, m)
		}
		for m, pids := range markerPids(p, ms...) {
			out[marked[m]].setMembers(pids)
		}
	}
	for i, fp := range relays {
		// A launch with no member left is gone, whatever its relay does:
		// a relay that outlived it is ended (the lock of a launch in
		// progress leaves it alone).
		if e := &out[i]; e.Status != StatusAlive && e.Status != StatusUnverified && e.Status != StatusUnknown {
			if note := st.collectRelay(e.Name, fp, p); note != "" {
				e.Note = strings.TrimPrefix(e.Note+"; "+note, "; ")
			}
		}
	}
	var probed bool
	var writeErr error
	for i := range unrecorded {
		if e := &out[i]; len(e.Members) == 0 {
			if !probed {
				writeErr, probed = st.writeProblem(), true
			}
			e.Note = strings.TrimPrefix(e.Note+"; "+unrecordedEnd(writeErr), "; ")
		}
	}
	owners := p.SocketOwnersOf(inodes)
	describe := proc.NewDescriber(p)
	for _, n := range later {
		pids := owners[n.l.Inode]
		cp := &out[n.entry].Ports[n.port]
		cp.Holder, cp.HolderPid = verify.Holder{Addr: n.l.AddrPort(), UID: n.l.UID, Inode: n.l.Inode, Pids: pids}.Describe(describe), 0
		if len(pids) > 0 {
			cp.HolderPid = pids[0]
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		return nil, nil // an empty census is nil, not an empty slice
	}
	return out, nil
}

// socketCache holds the socket inodes of each process read once in a
// census (several records may name one worker; a server's fd table can
// be long).
type socketCache map[int]map[uint64]bool

func (c socketCache) has(p proc.FS, pid int, inode uint64) bool {
	set, ok := c[pid]
	if !ok {
		inos, _ := p.SocketInodes(pid)
		set = make(map[uint64]bool, len(inos))
		for _, i := range inos {
			set[i] = true
		}
		c[pid] = set
	}
	return set[inode]
}

// namedLater is a census port whose holder is named once every fd table
// has been read.
type namedLater struct {
	entry, port int
	l           sockdiag.Listener
}

// setMembers marks an entry whose worker is gone alive while members of
// its tree are left.
func (e *CensusEntry) setMembers(pids []int) {
	if len(pids) == 0 {
		return
	}
	e.Members, e.Note = pids, membersNote(pids)
	e.Status = StatusAlive
	if e.Pending {
		e.Status = StatusUnverified
	}
}

// unrecordedEnd says why a gone launch's end is unknown: nothing that
// watched it recorded one. writeErr is why the state dir cannot be
// written now (nil: it can) — then a stop could not have marked it.
func unrecordedEnd(writeErr error) string {
	if writeErr != nil {
		return fmt.Sprintf("its end is not recorded, and the state dir cannot be written now (%v): a stop could not mark the record stopped, so it may have been stopped", writeErr)
	}
	return "its end is not recorded: it exited or was killed while no childproof watched it (detached, or its supervisor was killed), or a stop could not write the state dir then (that stop said so)"
}

// writeProblem says why a record cannot be written in the state dir now
// (a read-only state dir, a full disk), or nil: a probe file is created,
// written (one byte: a full tmpfs refuses the page) and removed.
func (s *State) writeProblem() error {
	dir := filepath.Join(s.Dir, statedir.RecordsDir)
	statedir.CleanTemps(dir, ".probe.") // a probe a killed ps left
	f, err := os.CreateTemp(dir, ".probe.")
	if err == nil {
		defer os.Remove(f.Name())
		_, err = f.Write([]byte{0})
		f.Close()
	}
	if u := errors.Unwrap(err); u != nil {
		return u // the errno, without the probe's name
	}
	return err
}
