package relaunch

import (
	"strings"

	"github.com/childproof/childproof/launcher"
)

// RecordedVars returns what relaunch passes as --var for rec: the
// recorded values of the names given (explicit, "K=V") does not set,
// then given; secret lists the recorded names whose value was a secret
// (kept as a digest only) and that given does not set again.
func RecordedVars(rec *launcher.Record, given []string) (vars, secret []string) {
	set := map[string]bool{}
	for _, kv := range given {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	for _, v := range rec.Vars {
		switch {
		case set[v.Name]:
		case v.Digest != "":
			secret = append(secret, v.Name)
		default:
			vars = append(vars, v.Name+"="+v.Value)
		}
	}
	return append(vars, given...), secret
}
