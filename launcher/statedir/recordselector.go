package statedir

import (
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
)

// RecordSelector is a launch's worker selector as its spec said it (the
// worker block's comm, exe and count, or its worker "NAME" roles), kept
// in the record so that the commands that re-select workers from the
// live tree (verify, ps, stop, relaunch, history) need not read the spec
// file again. A record written before it was kept has none: those
// commands then read the selector from the spec file the record names. It
// is plain data, safe for concurrent use while no one changes it.
type RecordSelector struct {
	Comm  string       `json:"comm,omitempty"`
	Exe   string       `json:"exe,omitempty"`
	Count int          `json:"count,omitempty"`
	Roles []RecordRole `json:"roles,omitempty"`
	// PortNames are the declared ports' labels, in Record.Ports order
	// (what a role's Ports name).
	PortNames []string `json:"port_names,omitempty"`
}

// RecordRole is one worker "NAME" block of a recorded launch. It is plain
// data, safe for concurrent use while no one changes it.
type RecordRole struct {
	Name  string   `json:"name"`
	Comm  string   `json:"comm,omitempty"`
	Exe   string   `json:"exe,omitempty"`
	Count int      `json:"count,omitempty"`
	Ports []string `json:"ports,omitempty"`
}

// SelectorOf is l's selector for its record, or nil when a comm or
// exe holds a secret value of the launch (a record never holds one: the
// spec file is read again instead).
func SelectorOf(l *spec.Launch, secrets *redact.Set) *RecordSelector {
	s := &RecordSelector{Comm: l.Worker.Comm, Exe: l.Worker.Exe, Count: l.Worker.Count}
	words := []string{l.Worker.Comm, l.Worker.Exe}
	for _, r := range l.Roles {
		s.Roles = append(s.Roles, RecordRole{Name: r.Name, Comm: r.Worker.Comm, Exe: r.Worker.Exe, Count: r.Worker.Count, Ports: r.Ports})
		words = append(words, r.Worker.Comm, r.Worker.Exe)
	}
	for _, w := range words {
		if w != "" && secrets != nil && secrets.Contains(w) {
			return nil
		}
	}
	for _, pt := range l.Ports {
		s.PortNames = append(s.PortNames, pt.Name)
	}
	return s
}

// SelectorLaunch is the part of a launch that re-selecting its workers
// reads (its name, worker selector, roles and declared ports), rebuilt
// from the record; nil when the record keeps no selector.
func (r *Record) SelectorLaunch() *spec.Launch {
	s := r.Selector
	if s == nil {
		return nil
	}
	l := &spec.Launch{Name: r.Name, Worker: spec.Worker{Comm: s.Comm, Exe: s.Exe, Count: s.Count}}
	for _, rr := range s.Roles {
		l.Roles = append(l.Roles, spec.Role{Name: rr.Name, Worker: spec.Worker{Comm: rr.Comm, Exe: rr.Exe, Count: rr.Count}, Ports: rr.Ports})
	}
	for i, pt := range r.Ports {
		p := spec.Port{Number: pt.Number, Address: pt.Address}
		if i < len(s.PortNames) {
			p.Name = s.PortNames[i]
		}
		l.Ports = append(l.Ports, p)
	}
	return l
}
