package interp

import "github.com/childproof/childproof/envres/internal/expand"

// walkCtx is the walk's context of an evaluator: the state and the file
// its words are evaluated in.
type walkCtx struct {
	st *state
	fc *fileCtx
}

// eval returns an evaluator of words in st, from the file fc.
func (a *analyzer) eval(st *state, fc *fileCtx) *evaluator {
	return &evaluator{Host: a, Scope: &st.Scope, Ctx: walkCtx{st, fc}}
}

// Override reports whether name is protected, and whether its override is
// known to be empty (expand.Host).
func (a *analyzer) Override(name string) (protected, empty bool) {
	p := a.prot[name]
	return p != nil, p != nil && p.known && p.value == ""
}

// fieldChunk is how many fields Fields allocates at once.
const fieldChunk = 512

// Fields returns an empty slice with room for n fields, cut from a
// chunk shared by many commands: one allocation for hundreds of commands
// instead of one each. The chunk is a stack: stmt gives back what the
// statement's words took when it ends (releaseFields), so the same memory
// serves the next statement. Nothing keeps a []expand.Field past its statement:
// set -- copies, a function's or sourced file's arguments are restored
// when it returns, and a cmdRef keeps its fields only for Plan, which
// gives nothing back. Appending past n copies as usual.
func (a *analyzer) Fields(n int) []expand.Field {
	if n > fieldChunk/4 {
		return make([]expand.Field, 0, n)
	}
	if len(a.fieldBuf)+n > cap(a.fieldBuf) {
		// A new chunk; the old one stays with the slices cut from it.
		a.fieldBuf = make([]expand.Field, 0, fieldChunk)
		a.fieldGen++
	}
	s := a.fieldBuf[len(a.fieldBuf) : len(a.fieldBuf) : len(a.fieldBuf)+n]
	a.fieldBuf = a.fieldBuf[:len(a.fieldBuf)+n]
	return s
}

// fieldMark is how far the field stack was taken.
type fieldMark struct{ n, gen int }

func (a *analyzer) markFields() fieldMark { return fieldMark{len(a.fieldBuf), a.fieldGen} }

// releaseFields gives back the fields taken since m. When a new chunk was
// started since, all of it was taken since m. Plan keeps commands'
// fields: it gives nothing back.
func (a *analyzer) releaseFields(m fieldMark) {
	switch {
	case a.plan != nil:
	case m.gen == a.fieldGen:
		a.fieldBuf = a.fieldBuf[:m.n]
	default:
		a.fieldBuf = a.fieldBuf[:0]
	}
}
