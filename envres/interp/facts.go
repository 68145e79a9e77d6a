package interp

import "github.com/childproof/childproof/envres/facts"

// The split between the walk and the rules, as in go/analysis: the walk
// (interp.go, commands.go, …) follows every path and records facts — the
// flow-sensitive ones (a change of a protected variable, a load, a
// wrapper) where it finds that they reach a worker; every rule (envres)
// reports from the facts alone in its Run, so adding a rule is one file
// (its Rule value and its Run) plus, if it needs a new kind of fact, the
// line of the walk that records it.

// The facts are envres/facts's; these are their names in interp. Each is
// plain data, safe for concurrent use while no one changes it.
type (
	Site       = facts.Site
	Activation = facts.Activation
	Background = facts.Background
	Bind       = facts.Bind
	AliasSet   = facts.AliasSet
	ChangeKind = facts.ChangeKind
	Change     = facts.Change
	Load       = facts.Load
	Wrapper    = facts.Wrapper
	Unchecked  = facts.Unchecked
	Facts      = facts.Facts
	FileRead   = facts.FileRead
	EnvSource  = facts.EnvSource
)

// The kinds of change.
const (
	ChangeUnset    = facts.ChangeUnset
	ChangeUnexport = facts.ChangeUnexport
	ChangeAssign   = facts.ChangeAssign
	ChangeLoad     = facts.ChangeLoad
	ChangeFill     = facts.ChangeFill
)

// uncheckedAt records a place the walk cannot follow (dynamic-source).
func (a *analyzer) uncheckedAt(s Site, msg string) {
	a.pass.Unchecked = fact(a.pass.Unchecked, Unchecked{At: s, Message: msg})
}

// factKey identifies a flow fact: the walk meets the same change, load
// or wrapper at every worker point it reaches, and records it once.
type factKey struct {
	kind        uint8 // 1 change, 2 load, 3 wrapper
	at          Pos
	name, value string
	flags       uint8
}

// once reports whether the fact k is new, and records it.
func (a *analyzer) once(k factKey) bool {
	if _, ok := a.factSeen[k]; ok {
		return false
	}
	if a.factSeen == nil {
		a.factSeen = map[factKey]struct{}{}
	}
	a.factSeen[k] = struct{}{}
	return true
}

// flag is 1 when b is set.
func flag(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// maxFacts bounds each kind of fact, as envres's maxFindings bounds
// findings.
const maxFacts = 10_000

// fact appends v to list unless the list is full.
func fact[T any](list []T, v T) []T {
	if len(list) >= maxFacts {
		return list
	}
	return append(list, v)
}
