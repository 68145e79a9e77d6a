package census

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// Entry is one recorded launch as it stands now. It is plain data,
// safe for concurrent use while no one changes it.
type Entry struct {
	Name string `json:"name"`
	// StateDir is the state dir the launch is recorded in, set by a census
	// of several (ps --state-dir A --state-dir B); empty otherwise.
	StateDir string `json:"state_dir,omitempty"`
	// Host is the host whose census this entry is, set by ps --host;
	// empty for this machine.
	Host string `json:"host,omitempty"`
	// Status is where the launch stands.
	Status   Status             `json:"status"`
	Worker   verify.Fingerprint `json:"worker"`
	Started  time.Time          `json:"started"`
	Detached bool               `json:"detached"`
	Ports    []Port             `json:"ports"`
	Log      string             `json:"log"`
	SpecPath string             `json:"spec_path,omitempty"`
	// Pending is set when the launch was never verified: it is under way,
	// or its childproof died mid-launch. Worker is then the launch root.
	Pending bool `json:"pending,omitempty"`
	// Restarts and LastExit are the record's (restart policies; a
	// oneshot's exit status once it ran to completion).
	Restarts int  `json:"restarts,omitempty"`
	LastExit *int `json:"last_exit,omitempty"`
	// Oneshot marks a oneshot launch (it runs to completion).
	Oneshot bool `json:"oneshot,omitempty"`
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

// Port says who holds a recorded port now. It is plain data, safe
// for concurrent use while no one changes it.
type Port struct {
	Number  int    `json:"number"`
	Address string `json:"address"`
	// Holder is "worker", "none", or a census line of another holder.
	Holder    string `json:"holder"`
	HolderPid int    `json:"holder_pid,omitempty"`
}

// Status is where a recorded launch stands (Entry.Status;
// its string is ps's STATUS and the JSON's "status").
type Status string

// The census statuses.
const (
	StatusAlive  = Status(verify.Alive)
	StatusGone   = Status(verify.Gone)
	StatusReused = Status(verify.Reused)
	// StatusUnknown: an unreadable record.
	StatusUnknown = Status(verify.Unknown)
	// StatusStopped: childproof stopped it (listed by Take with all).
	StatusStopped Status = "stopped"
	// StatusUntrusted: a record that fails authentication, never checked
	// against the kernel, never acted on; Worker and Started are then
	// what the record claims, unverified.
	StatusUntrusted Status = "untrusted"
	// StatusUnverified: a tree that runs but was never verified (a launch
	// under way, or one whose childproof died mid-launch).
	StatusUnverified Status = "unverified"
	// StatusDiverged: it runs, but foreground supervision found a member
	// that appeared after it was verified carrying a protected name with
	// another value (env-diverged; Note says which).
	StatusDiverged Status = "diverged"
)

// Take checks every record of st; stopped ones only when all is set.
func Take(p proc.FS, st *State, all bool) ([]Entry, error) {
	recs, bad, err := st.Summaries()
	if err != nil {
		return nil, err
	}
	c := newCensus(p, st, all, len(bad)+len(recs))
	for _, b := range bad {
		c.addBad(b)
	}
	for _, r := range recs {
		c.addRecord(r)
	}
	c.markedMembers()
	c.reselectWorkers()
	c.collectRelays()
	c.noteUnrecorded()
	c.nameHolders()
	out := c.out
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		return nil, nil // an empty census is nil, not an empty slice
	}
	return out, nil
}

// census is one Take under way: the entries so far, and what its later
// passes (members by marker, relays, unrecorded ends, port holders) still
// have to settle, by entry index.
type census struct {
	p   proc.FS
	st  *State
	all bool
	// byPort is every listener at once (one sock_diag dump); lerr is why
	// it could not be read (each port's holder is then unknown).
	byPort map[int][]sockdiag.Listener
	lerr   error
	// inodes and later are the holders that are not their record's
	// worker, named after one pass over /proc (nameHolders).
	inodes  map[uint64]bool
	sockets socketCache
	later   []namedLater
	out     []Entry
	// marked: records whose worker is gone and that have a marker but no
	// cgroup: their members are found in one pass over /proc
	// (markedMembers).
	marked map[string]int
	// relays: entries with a recorded log relay, by index: a gone
	// launch's relay is ended once its members are known (collectRelays).
	relays map[int]*verify.Fingerprint
	// unrecorded: entries of launches gone with their end unrecorded (no
	// stop, no supervisor saw it): ps says why their status is unknown
	// (noteUnrecorded).
	unrecorded map[int]bool
	// left: entries whose worker is gone and whose tree was looked for
	// members (leftMembers): one with members left may have a respawned
	// worker (reselectWorkers).
	left map[int]bool
	// reselected: entries whose worker was re-selected from the live
	// tree: a port it holds is the worker's (nameHolders).
	reselected map[int]bool
}

// newCensus starts a census of n records: it dumps every listener once.
func newCensus(p proc.FS, st *State, all bool, n int) *census {
	byPort, lerr := sockdiag.ByPort(p.Root)
	return &census{p: p, st: st, all: all, byPort: byPort, lerr: lerr,
		inodes: map[uint64]bool{}, sockets: socketCache{},
		out:    make([]Entry, 0, n),
		marked: map[string]int{}, relays: map[int]*verify.Fingerprint{}, unrecorded: map[int]bool{},
		left: map[int]bool{}, reselected: map[int]bool{}}
}

// addBad adds the entry of an unreadable record: "unknown", or
// "untrusted" with what the record claims, shown as such (never checked,
// never acted on).
func (c *census) addBad(b statedir.BadRecord) {
	status := StatusUnknown
	e := Entry{Name: b.Name, Ports: []Port{}, Error: b.Err.Error()}
	if b.Untrusted() {
		status = StatusUntrusted
		// What the record claims, shown as such: never checked, never acted on.
		var u *statedir.UntrustedClaim
		if errors.As(b.Err, &u) {
			e.Worker, e.Started = u.Worker, u.Started
		}
	}
	e.Status = status
	c.out = append(c.out, e)
}

// addRecord adds the entry of a readable record (unless it is stopped and
// the census is not of all): its worker's liveness, the members left of a
// gone worker, what the later passes settle, and its ports' holders.
func (c *census) addRecord(r statedir.Summary) {
	e := Entry{Name: r.Name, Worker: r.Worker, Started: r.Started, Detached: r.Detached, Log: r.Log, SpecPath: r.SpecPath, Ports: []Port{}, Pending: r.Pending,
		Restarts: r.Restarts, LastExit: r.LastExit, Oneshot: r.Oneshot}
	e.Round, e.Workers = r.Round, r.Workers
	live, listed := c.judgeWorker(r, &e)
	if !listed {
		return
	}
	c.leftMembers(r, live, &e)
	if r.Relay != nil {
		c.relays[len(c.out)] = r.Relay
	}
	if r.Stopped == nil && !r.Pending && (live == verify.Gone || live == verify.Reused) {
		c.unrecorded[len(c.out)] = true
	}
	for _, rp := range r.Ports {
		e.Ports = append(e.Ports, c.port(r, live, rp, len(e.Ports)))
	}
	if c.otherNS(r, live) {
		e.Note = strings.TrimPrefix(e.Note+"; the worker is in another network namespace: its ports were read there", "; ")
	}
	c.out = append(c.out, e)
}

// judgeWorker decides e's status from r's worker: alive, gone, reused or
// unknown; "unverified" for a pending tree that runs; "stopped" for a
// stopped record whose worker is not alive — listed only when the census
// is of all (listed false: it is left out). A gone worker's end is noted
// and its empty cgroups swept; a live worker's dead log relay is said in
// e.Note.
func (c *census) judgeWorker(r statedir.Summary, e *Entry) (live verify.Liveness, listed bool) {
	live = r.Worker.Check(c.p)
	e.Status = Status(live)
	if (live == verify.Gone || live == verify.Reused) && !r.Pending && r.Stopped == nil {
		c.st.NoteGone(r.Name, r.Round)
	}
	if live != verify.Alive && live != verify.Unknown {
		// Empty cgroups of a launch that ended without childproof
		// (a SIGKILLed supervisor, a pid-reuse stop) go now.
		c.st.sweepCgroups(r.Name, r.Cgroup)
	}
	if live == verify.Alive && r.Relay != nil && r.Relay.Check(c.p) != verify.Alive {
		// Said, not silent: the relay was SIGKILLed (or OOM-killed).
		e.Note = fmt.Sprintf("log relay (pid %d) is gone: output no longer logged; writes get EPIPE", r.Relay.Pid)
	}
	if r.Diverged != "" && live == verify.Alive && r.Stopped == nil {
		e.Status = StatusDiverged
		e.Note = strings.TrimPrefix(e.Note+"; "+r.Diverged, "; ")
	}
	if r.Pending && live == verify.Alive {
		// Its tree runs but was never verified: not "alive", which
		// scripts read as verified and running.
		e.Status = StatusUnverified
	}
	if r.Stopped != nil && live != verify.Alive {
		if !c.all {
			return live, false
		}
		e.Status = StatusStopped
	}
	return live, true
}

// leftMembers finds, for a record not stopped whose worker is gone, the
// members left of its tree: those of its trusted cgroup now, or (a marker,
// a cgroup not removed) those carrying its marker in markedMembers.
func (c *census) leftMembers(r statedir.Summary, live verify.Liveness, e *Entry) {
	if r.Stopped == nil && live != verify.Alive && live != verify.Unknown {
		c.left[len(c.out)] = true
		if cg := proctree.TrustedCgroup(r.Cgroup, r.Name); cg != "" {
			rec := &statedir.Record{Name: r.Name, Cgroup: r.Cgroup}
			e.setMembers(LiveMembers(c.p, rec))
		} else if r.Marker != "" && !proctree.CgroupRemoved(r.Cgroup, r.Name) {
			// (A removed cgroup had no member left: proctree.CgroupRemoved.)
			c.marked[r.Marker] = len(c.out)
		}
	}
}

// port says who holds recorded port rp (the index-th of the entry being
// added): "worker" when a live worker holds it itself, "none", unknown
// when the listeners could not be read; another holder is named later
// (nameHolders, after one scan of every fd table).
func (c *census) port(r statedir.Summary, live verify.Liveness, rp statedir.RecordPort, index int) Port {
	cp := Port{Number: rp.Number, Address: rp.Address, Holder: "none"}
	if c.lerr != nil {
		cp.Holder = fmt.Sprintf("unknown: %v", c.lerr)
	}
	// The recorded worker's own fds first; a listener it does not
	// hold is named after one scan of every fd table, below.
	var others []sockdiag.Listener
	listeners := c.byPort[rp.Number]
	if c.otherNS(r, live) {
		// The one dump answers for this namespace only: ask the worker's.
		ls, err := sockdiag.LookupFor(c.p.Root, r.Worker.Pid, rp.Number)
		listeners = ls
		if err != nil {
			cp.Holder = fmt.Sprintf("unknown: %v", err)
		}
	}
	for _, l := range listeners {
		if live == verify.Alive {
			if c.sockets.has(c.p, r.Worker.Pid, l.Inode) {
				cp.Holder, cp.HolderPid, others = "worker", r.Worker.Pid, nil
				break
			}
		}
		others = append(others, l)
	}
	if len(others) > 0 {
		// The last holder is the one shown.
		l := others[len(others)-1]
		c.inodes[l.Inode] = true
		c.later = append(c.later, namedLater{entry: len(c.out), port: index, l: l})
	}
	return cp
}

// otherNS reports whether r's live worker is in another network
// namespace than this census.
func (c *census) otherNS(r statedir.Summary, live verify.Liveness) bool {
	return live == verify.Alive && r.Worker.Pid > 0 && sockdiag.OtherNetNS(c.p.Root, r.Worker.Pid)
}

// markedMembers finds the members of the marked entries in one pass over
// /proc: an entry with members left is alive (or unverified).
func (c *census) markedMembers() {
	if len(c.marked) > 0 {
		ms := make([]string, 0, len(c.marked))
		for m := range c.marked {
			ms = append(ms, m)
		}
		found := proctree.MarkerPids(c.p, ms...)
		for m, i := range c.marked {
			pids := found[m]
			if len(pids) == 0 {
				// A daemon the worker forked once it was judged, its
				// title over the marker: the marker scan is done, only
				// the forks are looked for.
				if rec, err := c.st.Load(c.out[i].Name); err == nil && rec.Marker == m {
					pids = forkedMembers(c.p, rec)
				}
			}
			c.out[i].setMembers(pids)
		}
	}
}

// reselectWorkers re-selects, as verify SPEC does (Reselect), the worker
// of each launch whose recorded worker is gone while members of its tree
// are left: a member its spec's selector picks (a respawned worker) makes
// the launch alive, its row naming that worker with a short note. A tree
// with members but none that matches stays "worker gone, N members left".
func (c *census) reselectWorkers() {
	for i := range c.left {
		e := &c.out[i]
		if len(e.Members) == 0 || e.Pending {
			continue
		}
		if fp, note := c.st.reselectRecorded(c.p, e.Name, e.Round); fp != nil {
			e.Worker, e.Members, e.Note, e.Status = *fp, nil, note, StatusAlive
			delete(c.unrecorded, i)
			c.reselected[i] = true
		}
	}
}

// collectRelays ends the log relay of each launch with no member left,
// noting it on its entry.
func (c *census) collectRelays() {
	for i, fp := range c.relays {
		// A launch with no member left is gone, whatever its relay does:
		// a relay that outlived it is ended (the lock of a launch in
		// progress leaves it alone).
		if e := &c.out[i]; e.Status != StatusAlive && e.Status != StatusDiverged && e.Status != StatusUnverified && e.Status != StatusUnknown {
			if note := c.st.collectRelay(e.Name, fp, c.p); note != "" {
				e.Note = strings.TrimPrefix(e.Note+"; "+note, "; ")
			}
		}
	}
}

// noteUnrecorded says on each gone launch with no member left and its end
// unrecorded why its end is unknown (the state dir is probed once, for
// the first such entry).
func (c *census) noteUnrecorded() {
	var probed bool
	var writeErr error
	for i := range c.unrecorded {
		if e := &c.out[i]; len(e.Members) == 0 {
			if !probed {
				writeErr, probed = c.st.writeProblem(), true
			}
			e.Note = strings.TrimPrefix(e.Note+"; "+unrecordedEnd(writeErr), "; ")
		}
	}
}

// nameHolders names the holders of the ports left for later, after one
// scan of every fd table.
func (c *census) nameHolders() {
	owners := c.p.SocketOwnersOf(c.inodes)
	describe := proc.NewDescriber(c.p)
	for _, n := range c.later {
		pids := owners[n.l.Inode]
		cp := &c.out[n.entry].Ports[n.port]
		cp.Holder, cp.HolderPid = verify.Holder{Addr: n.l.AddrPort(), UID: n.l.UID, Inode: n.l.Inode, Pids: pids}.Describe(describe), 0
		if len(pids) > 0 {
			cp.HolderPid = pids[0]
		}
		if c.reselected[n.entry] && slices.Contains(pids, c.out[n.entry].Worker.Pid) {
			cp.Holder, cp.HolderPid = "worker", c.out[n.entry].Worker.Pid
		}
	}
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
func (e *Entry) setMembers(pids []int) {
	if len(pids) == 0 {
		return
	}
	e.Members, e.Note = pids, MembersNote(pids)
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
		return fmt.Sprintf("end not recorded: state dir not writable now (%v)", writeErr)
	}
	return "its end is not recorded: it exited while no childproof watched it"
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
