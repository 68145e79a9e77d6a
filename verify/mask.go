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
	for i := range r.Chain {
		r.Chain[i].Argv = s.Argv(r.Chain[i].Argv)
	}
	for i := range r.Problems {
		r.Problems[i].Message = s.Text(r.Problems[i].Message)
	}
	r.Tail = s.Lines(r.Tail)
	if r.Worker != nil {
		r.Worker.Exe = s.Text(r.Worker.Exe)
	}
}
