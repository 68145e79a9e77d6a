package launcher

import (
	"github.com/childproof/childproof/launcher/mask"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// launchSecrets is the secret set of a launch: the resolved env's when
// the env was resolved, else the one its spec and --set values give.
func launchSecrets(l *spec.Launch, env *Env, opts Options) *redact.Set {
	if env != nil {
		return env.Secrets()
	}
	return mask.SecretSet(l, opts.Set, opts.SecretSet, nil, nil)
}

// Known is what a command that launches nothing knows of the secrets of
// the launches it shows (mask.Known). It is plain data, safe for
// concurrent use while no one changes it.
type Known = mask.Known

// Secrets returns the mask of what k names: the secrets of the spec, of
// the records and of the log mask, as one secret set (mask.Of).
func (s *State) Secrets(k Known) *redact.Set { return mask.Of(s.Store, k) }

// MaskPidReport hides secrets in r, the report of a check of process pid
// as verify --pid makes it, by the records whose root or worker is pid, a
// process of r's chain or r's worker (mask.PidReport).
func (s *State) MaskPidReport(pid int, r *verify.Report) { mask.PidReport(s.Store, pid, r) }
