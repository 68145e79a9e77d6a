package expand

import "slices"

// Kind is the kind of an abstract value.
type Kind uint8

const (
	Unknown Kind = iota // any value, or not known whether set
	Unset               // certainly unset
	Literal             // a known string
	Orig                // the caller's value of the variable named in Str
)

// Value is the abstract value of a shell variable. It is plain data, safe
// for concurrent use.
type Value struct {
	Kind Kind
	Str  string
}

// UnknownValue is any value.
var UnknownValue = Value{Kind: Unknown}

// Lit is the known string s.
func Lit(s string) Value { return Value{Kind: Literal, Str: s} }

// Tri is a three-valued truth: no, yes, or maybe (after a merge).
type Tri uint8

const (
	No Tri = iota
	Yes
	Maybe
)

// VarState is what is known of one variable. It is plain data, safe for
// concurrent use while no one changes it.
type VarState[E any] struct {
	Val     Value
	Exp     Tri
	LoadExp bool // an env-file load exported the current value
	Origins []*E
	// Earlier are changes of a protected variable that a later change
	// overwrote with another value that is not the override: reported too.
	Earlier []*E
	// w is what is known of the variable as command words, nil when
	// nothing: behind a pointer, as few variables have it and every
	// fork, merge and lookup copies a VarState. Never changed in place.
	w *CmdWords
}

// CmdWords are the literal values a variable may hold as command words
// (interp's $SUDO and "${CMD[@]}"). They are plain data, safe for
// concurrent use while no one changes them.
type CmdWords struct {
	// Alts are the literal values the variable has on the paths that
	// merged into an unknown value ("" for unset), when each is known;
	// nil otherwise.
	Alts []string
	// Arr holds the elements of an array assigned only literal words
	// (CMD=(sudo -u app ./api)); IsArr marks that it is known.
	Arr   []string
	IsArr bool
	// ArrAlts are the literal arrays it holds on the paths that merged
	// into an unknown one, when each is known.
	ArrAlts [][]string
	// Head holds the known leading elements of an array whose later
	// elements are not known (CMD=(vllm serve "$MODEL")): the command
	// word of "${CMD[@]}" is known. Unset when IsArr.
	Head []string
}

var noWords CmdWords

// Words returns v's command words (the zero CmdWords when none).
func (v VarState[E]) Words() *CmdWords {
	if v.w == nil {
		return &noWords
	}
	return v.w
}

// WithWords returns v holding w (nil when w knows nothing).
func (v VarState[E]) WithWords(w CmdWords) VarState[E] {
	if w.Alts == nil && w.Arr == nil && !w.IsArr && w.ArrAlts == nil && w.Head == nil {
		v.w = nil
	} else {
		v.w = &w
	}
	return v
}

// maxAlts bounds the alternatives a variable keeps.
const maxAlts = 8

// altsOf returns the literal values v may have, and whether all are
// known: a literal, unset, or a variable the script never set (taken as
// unset: the alternatives serve command words such as $SUDO). one is
// where a single value is put, so that a merge allocates only its result.
func altsOf[E any](v VarState[E], one *[1]string) ([]string, bool) {
	switch {
	case v.Words().Alts != nil:
		return v.Words().Alts, true
	case v.Val.Kind == Literal:
		one[0] = v.Val.Str
		return one[:], true
	case v.Val.Kind == Unset:
		one[0] = ""
		return one[:], true
	case v.Val.Kind == Unknown && len(v.Origins) == 0 && v.Exp == Maybe:
		one[0] = ""
		return one[:], true
	}
	return nil, false
}

const maxOrigins = 8

// JoinOrigins returns the origins of a and of b, each once, at most
// maxOrigins.
func JoinOrigins[E any](a, b []*E) []*E {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := append([]*E(nil), a...)
	for _, e := range b {
		found := false
		for _, f := range out {
			if f == e {
				found = true
				break
			}
		}
		if !found && len(out) < maxOrigins {
			out = append(out, e)
		}
	}
	return out
}

// leading returns the known leading elements of an array: all of a
// known one, the head of one known in part.
func (w *CmdWords) leading() []string {
	if w.IsArr {
		return w.Arr
	}
	return w.Head
}

// commonPrefix returns the elements a and b start with (nil when none).
func commonPrefix(a, b []string) []string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n == 0 {
		return nil
	}
	return a[:n:n]
}

// JoinVar is what is known of a variable that is a on one path and b on
// another.
func JoinVar[E any](a, b VarState[E]) VarState[E] {
	out := a
	aw, bw := a.Words(), b.Words()
	ow := *aw
	if a.Val != b.Val {
		out.Val = UnknownValue
		ow.Alts = nil
		var oneA, oneB [1]string
		if aa, ok := altsOf(a, &oneA); ok {
			if bb, ok := altsOf(b, &oneB); ok {
				ow.Alts = append(make([]string, 0, min(len(aa)+len(bb), maxAlts)), aa...)
				for _, x := range bb {
					if !slices.Contains(ow.Alts, x) && len(ow.Alts) < maxAlts {
						ow.Alts = append(ow.Alts, x)
					}
				}
			}
		}
	}
	if aw.IsArr != bw.IsArr || !slices.Equal(aw.Arr, bw.Arr) {
		ow.Arr, ow.IsArr, ow.ArrAlts = nil, false, nil
		aa, bb := aw.ArrAlts, bw.ArrAlts
		if aw.IsArr {
			aa = [][]string{aw.Arr}
		}
		if bw.IsArr {
			bb = [][]string{bw.Arr}
		}
		if aa != nil && bb != nil {
			ow.ArrAlts = append([][]string(nil), aa...)
			for _, x := range bb {
				if !slices.ContainsFunc(ow.ArrAlts, func(y []string) bool { return slices.Equal(x, y) }) && len(ow.ArrAlts) < maxAlts {
					ow.ArrAlts = append(ow.ArrAlts, x)
				}
			}
		}
	}
	headDiffers := !slices.Equal(aw.Head, bw.Head)
	if aw.IsArr != bw.IsArr || !slices.Equal(aw.Arr, bw.Arr) || headDiffers {
		ow.Head = nil
		if !ow.IsArr {
			ow.Head = commonPrefix(aw.leading(), bw.leading())
		}
	}
	if a.Val != b.Val || aw.IsArr != bw.IsArr || !slices.Equal(aw.Arr, bw.Arr) || headDiffers {
		out = out.WithWords(ow)
	}
	if a.Exp != b.Exp {
		out.Exp = Maybe
	}
	out.Origins = JoinOrigins(a.Origins, b.Origins)
	out.Earlier = JoinOrigins(a.Earlier, b.Earlier)
	out.LoadExp = a.LoadExp || b.LoadExp
	return out
}

// DefaultVar is what an untracked name is: set or not by the caller,
// maybe exported.
func DefaultVar[E any]() VarState[E] { return VarState[E]{Val: UnknownValue, Exp: Maybe} }
