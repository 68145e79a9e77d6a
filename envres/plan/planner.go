package plan

import (
	"sort"
	"strconv"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/construct"
	"github.com/childproof/childproof/envres/script"
)

// Planner collects where workers start while one walk (envres/interp's
// Analyze) runs. It is not safe for concurrent use: one walk fills it.
type Planner struct {
	starts []*Start
	bySite map[string]int
	// commands are the foreground commands run, once per place.
	commands []Command
	ranAt    map[string]bool
	// files are the scripts the walk parsed, for Constructs.
	files []parsed
}

// parsed is a script the walk read and parsed without error.
type parsed struct {
	name string
	src  []byte
	file *syntax.File
}

// New returns a planner for one walk.
func New() *Planner {
	return &Planner{bySite: map[string]int{}}
}

// Starts are the places where a worker may start, in the order the walk
// reached them.
func (p *Planner) Starts() []*Start { return p.starts }

// Commands are the external commands run in the foreground, in the order
// reached.
func (p *Planner) Commands() []Command { return p.commands }

// Add records a worker start; a place reached again keeps the last.
func (p *Planner) Add(s *Start) {
	key := posKey(s.Pos)
	if i, ok := p.bySite[key]; ok {
		p.starts[i] = s
		return
	}
	p.bySite[key] = len(p.starts)
	p.starts = append(p.starts, s)
}

// Ran records a non-trivial external command run in the foreground, once
// per place.
func (p *Planner) Ran(c Command) {
	key := posKey(c.Pos)
	if p.ranAt == nil {
		p.ranAt = map[string]bool{}
	}
	if p.ranAt[key] {
		return
	}
	p.ranAt[key] = true
	p.commands = append(p.commands, c)
}

func posKey(p script.Pos) string {
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}

// Read records a script the walk read and parsed, by the name findings
// give it, for Constructs.
func (p *Planner) Read(name string, src []byte, file *syntax.File) {
	p.files = append(p.files, parsed{name: name, src: src, file: file})
}

// Constructs walks the scripts read for readiness loops, kill cleanups and
// conditionals (construct.Find).
func (p *Planner) Constructs() []construct.Construct {
	var out []construct.Construct
	pfs := append([]parsed(nil), p.files...)
	sort.Slice(pfs, func(i, j int) bool { return pfs[i].name < pfs[j].name })
	for _, pf := range pfs {
		out = append(out, construct.Find(pf.name, pf.src, pf.file)...)
	}
	return out
}
