package treelook

import (
	"fmt"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/proccn"
	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/treeevents"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// fullLookEvery is how often the find loop looks at everything although
// nothing changed: the waits for a quiet tree are judged on it.
const fullLookEvery = 200 * time.Millisecond

// Looker is the find loop's looks at one tree: the last listing of the
// tree and the last full look. Not safe for concurrent use.
type Looker struct {
	// Proc is the proc FS the tree is read through.
	Proc proc.FS
	// Ports are the launch's declared ports.
	Ports []spec.Port
	// Members lists the tree's pids.
	Members func() []int
	// Events is the tree's fork, exec and exit events (nil: none).
	Events *treeevents.Events
	// tree and treeSig are the last listing of the tree and its
	// signature, made at treeGen of the tree's events (when they are
	// heard) and at treeAt; its reading began at treeStamp (proccn.Now's
	// clock, the events' own; 0: unknown).
	tree      []int
	treeSig   string
	treeGen   uint64
	treeAt    time.Time
	treeStamp uint64
	// look is what the last full look saw (lookSig) and when.
	lookSig string
	lookAt  time.Time
	// diag is the sock_diag socket the cheap looks ask (nil: none yet,
	// or none to be had when diagTried).
	diag      *sockdiag.Conn
	diagTried bool
	// asked is what this look's Changed asked of each declared port's
	// listeners (absent: its query failed, or Changed was not asked
	// since List).
	asked map[int][]sockdiag.Listener
}

// List lists the tree. Where the proc connector is heard and nothing
// happened in the tree since the last listing began (no fork, exec,
// rename or exit; none lost), that listing stands for up to
// fullLookEvery: the cheap look is then one socket-table query per port.
// An event heard since, but stamped before the listing began (the
// connector's are read up to 40 ms late: the launched root's exec is
// heard after the first listing, which showed it), changed nothing the
// listing missed.
func (l *Looker) List() []int {
	clear(l.asked)
	gen, heard := l.Events.Generation()
	if heard && l.tree != nil && time.Since(l.treeAt) < fullLookEvery && (gen == l.treeGen || l.Events.HeardBefore(l.treeStamp)) {
		l.treeGen = gen
		return l.tree
	}
	l.treeStamp = proccn.Now()
	l.tree, l.treeGen, l.treeAt = l.Members(), gen, time.Now()
	l.treeSig = proctree.Signature(l.Proc, l.tree)
	return l.tree
}

// Seen reports whether the tree's events heard since the last listing
// (if any) were stamped before it began, none lost: the listing, and the
// look made on it, showed what they tell (the launched root's exec, heard
// late). False where the events are not heard.
func (l *Looker) Seen() bool {
	_, heard := l.Events.Generation()
	return heard && l.tree != nil && l.Events.HeardBefore(l.treeStamp)
}

// TreeSig is the signature of the last listing (proctree.Signature).
func (l *Looker) TreeSig() string { return l.treeSig }

// Changed reports whether the tree or the declared ports' listeners
// changed since the last full look, or that look is fullLookEvery old;
// it notes this look as the last full one when so. A look that finds
// nothing changed costs a socket-table query per port and a stat per
// member: the full look (holders' fds, the selector, verification) is
// what a wait of minutes must not repeat every millisecond.
func (l *Looker) Changed() bool {
	var b strings.Builder
	b.WriteString(l.treeSig)
	clear(l.asked)
	for _, pt := range l.Ports {
		ls, err := l.listeners(pt.Number)
		if err == nil {
			if l.asked == nil {
				l.asked = map[int][]sockdiag.Listener{}
			}
			l.asked[pt.Number] = ls
		}
		for _, ln := range ls {
			fmt.Fprintf(&b, " L%d", ln.Inode)
		}
	}
	sig := b.String()
	if sig == l.lookSig && time.Since(l.lookAt) < fullLookEvery {
		return false
	}
	l.lookSig, l.lookAt = sig, time.Now()
	return true
}

// Seed notes in k, a full look begun after this look's Changed, the
// listeners Changed asked of each declared port (verify.Look.Listened):
// the full look does not ask for them again. Nothing when Changed was
// not asked since List.
func (l *Looker) Seed(k *verify.Look) {
	for port, ls := range l.asked {
		hs := make([]verify.Holder, 0, len(ls))
		for _, ln := range ls {
			hs = append(hs, verify.Holder{Addr: ln.AddrPort(), UID: ln.UID, Inode: ln.Inode})
		}
		k.Listened(port, hs)
	}
}

// Sig names what the last full look saw: the same Sig, the same tree
// and listeners.
func (l *Looker) Sig() string { return l.lookSig }

// Forget makes the next look a full one.
func (l *Looker) Forget() { l.lookSig = "" }

// Keep returns a func that puts the last full look back as it is now.
func (l *Looker) Keep() (restore func()) {
	sig, at := l.lookSig, l.lookAt
	return func() { l.lookSig, l.lookAt = sig, at }
}

// listeners is the socket table's listeners on port, asked over the
// kept sock_diag socket (a look every millisecond made, bound and
// closed one each time: a third of the query's cost), or by
// sockdiag.Lookup where there is none.
func (l *Looker) listeners(port int) ([]sockdiag.Listener, error) {
	if l.diag == nil && !l.diagTried {
		l.diagTried = true
		l.diag, _ = sockdiag.Open()
	}
	return l.diag.ListenersOr(uint16(port), func() ([]sockdiag.Listener, error) {
		return sockdiag.Lookup(l.Proc.Root, port)
	})
}

// Close lets go of the kept socket.
func (l *Looker) Close() { l.diag.Close() }
