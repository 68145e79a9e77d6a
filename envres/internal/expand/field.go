package expand

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MaxValueLen bounds the strings the analysis tracks; longer values are
// unknown.
const MaxValueLen = 4096

// Field is one evaluated word (or one field of "$@"). It is plain data,
// safe for concurrent use while no one changes it.
type Field struct {
	Str string // the value; when !known, the parts that are known
	// v is the abstract value when the word is exactly one parameter
	// expansion or a literal, so that X=$SAVED keeps "the caller's value".
	Val  Value
	Pos  syntax.Pos
	Word *syntax.Word
	// subw is the word whose command and process substitutions the field
	// has (its own word, or an argument's for "$@"), nil when none.
	SubWord *syntax.Word
	// Self names the variable when the word is exactly $X, ${X:-d},
	// ${X-d}, ${X:=d} or ${X:?m}: X=${X:-d} keeps a value X has.
	Self  string
	Known bool
	Pid   bool // mentions $! or a variable holding it
	// (the booleans last: the struct is 88 bytes, not 104.)
	Quoted bool
	// Splat stands for zero or more unknown positional parameters.
	Splat bool
}

// Substs returns the word's command substitutions (those parts
// evaluates: not inside another expansion's operand).
func (f *Field) Substs() []*syntax.CmdSubst {
	if f.SubWord == nil {
		return nil
	}
	var out []*syntax.CmdSubst
	eachSubst(f.SubWord.Parts, func(p syntax.WordPart) {
		if cs, ok := p.(*syntax.CmdSubst); ok {
			out = append(out, cs)
		}
	})
	return out
}

// NameSubsts returns the word's command substitutions before the first
// literal '=' of its word: those whose output names the variables.
func (f *Field) NameSubsts() []*syntax.CmdSubst {
	if f.SubWord == nil {
		return nil
	}
	var out []*syntax.CmdSubst
	eq := false
	var walk func(parts []syntax.WordPart)
	walk = func(parts []syntax.WordPart) {
		for _, p := range parts {
			if eq {
				return
			}
			switch p := p.(type) {
			case *syntax.Lit:
				eq = strings.Contains(p.Value, "=")
			case *syntax.SglQuoted:
				eq = strings.Contains(p.Value, "=")
			case *syntax.DblQuoted:
				walk(p.Parts)
			case *syntax.CmdSubst:
				out = append(out, p)
			}
		}
	}
	walk(f.SubWord.Parts)
	return out
}

// Procs returns the word's process substitutions.
func (f *Field) Procs() []*syntax.ProcSubst {
	if f.SubWord == nil {
		return nil
	}
	var out []*syntax.ProcSubst
	eachSubst(f.SubWord.Parts, func(p syntax.WordPart) {
		if ps, ok := p.(*syntax.ProcSubst); ok {
			out = append(out, ps)
		}
	})
	return out
}

// eachSubst calls fn for each command and process substitution among
// parts, in order, looking into double quotes as parts does.
func eachSubst(parts []syntax.WordPart, fn func(syntax.WordPart)) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.DblQuoted:
			eachSubst(p.Parts, fn)
		case *syntax.CmdSubst, *syntax.ProcSubst:
			fn(p)
		}
	}
}

// maxFields bounds the words a command's "$@" expands to (with
// maxArrayElems and maxValueLen, the size of what the analysis holds).
const maxFields = 1024

// UnknownArgs are positional parameters that are not known.
var UnknownArgs = []Field{{Splat: true, Val: UnknownValue}}

// ArgsKnown reports whether every positional parameter is known in number.
func ArgsKnown(args []Field) bool {
	for _, a := range args {
		if a.Splat {
			return false
		}
	}
	return true
}

// LitField is the field of a literal word.
func LitField(s string, pos syntax.Pos) Field {
	return Field{Str: s, Known: true, Val: Lit(s), Pos: pos}
}
