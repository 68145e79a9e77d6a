package verify

import "github.com/childproof/childproof/redact"

// Mask hides the secret values of s in everything r prints or stores
// that does not come from a digest: the chain's argv (an element that is
// or holds a secret becomes <NAME>), problem messages, the worker's last
// lines. Values shown with --show-values stay: the caller asked for them
// by name, for this one output.
func (r *Report) Mask(s *redact.Set) {
	if r == nil || s.Empty() {
		return
	}
	// A comm may be a secret value (worker { comm = env("X") }): an exact
	// one is shown as <X> (redact.Set.Arg), however short.
	for i := range r.Chain {
		r.Chain[i].Argv = s.Argv(r.Chain[i].Argv)
		r.Chain[i].Comm = s.Arg(r.Chain[i].Comm)
	}
	for i := range r.Workers {
		r.Workers[i].Comm = s.Arg(r.Workers[i].Comm)
		r.Workers[i].Exe = s.Text(r.Workers[i].Exe)
	}
	for i := range r.Members {
		r.Members[i].Comm = s.Arg(r.Members[i].Comm)
	}
	for i := range r.Problems {
		r.Problems[i].Message = s.Text(r.Problems[i].Message)
	}
	r.Tail = s.Lines(r.Tail)
	if r.Worker != nil {
		r.Worker.Exe = s.Text(r.Worker.Exe)
		r.Worker.Comm = s.Arg(r.Worker.Comm)
	}
}
