package launcher

import (
	"slices"
	"strings"

	"github.com/childproof/childproof/redact"
)

// recordVars are the launch's --var values as the record keeps them: a
// value that holds a secret of the launch (secrets masks it) by its
// digest only; the last of a name given twice wins.
func (la *Launch) recordVars(secrets *redact.Set) []RecordVar {
	var out []RecordVar
	for _, kv := range la.opts.Vars {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		out = slices.DeleteFunc(out, func(r RecordVar) bool { return r.Name == k })
		if secrets.Text(v) != v {
			out = append(out, RecordVar{Name: k, Digest: la.State.Digest("var."+k, v)})
			continue
		}
		out = append(out, RecordVar{Name: k, Value: v})
	}
	return out
}
