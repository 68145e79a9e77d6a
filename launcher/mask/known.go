package mask

import (
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Known is what a command that launches nothing knows of the secrets of
// the launches it shows, without their values in its environment
// (contract §6): Of gives the mask of all of it. It is plain data,
// safe for concurrent use while no one changes it.
type Known struct {
	// Spec is the launch's spec as it reads here; nil: none. Its secrets
	// are those known without launching (spec.Launch.Secrets).
	Spec *spec.Launch
	// Record is the launch's record; nil: none. Its secrets are known by
	// their digests and where they occur.
	Record *statedir.Record
	// Pids adds the trusted records whose root or worker is one of them
	// (verify --pid, explain --pid); nil: none.
	Pids []int
	// Log adds the log mask written as the last launch of that name
	// started (it covers a launch that failed and left no record); "":
	// none.
	Log string
}

// Of returns the mask of what k names, in the state dir s: the secrets of
// the spec, of the records and of the log mask, as one secret set
// (redact.Of). A record or log mask that fails authentication adds
// nothing.
func Of(s *statedir.Store, k Known) *redact.Set {
	var secs []redact.Secret
	if k.Spec != nil {
		secs = k.Spec.Secrets()
	}
	secs = append(secs, s.RecordSecrets(k.Record)...)
	if len(k.Pids) > 0 {
		recs, _ := s.RecordsOfPids(k.Pids...)
		for _, r := range recs {
			if r != k.Record {
				secs = append(secs, s.RecordSecrets(r)...)
			}
		}
	}
	if k.Log != "" {
		secs = append(secs, s.LogMaskSecrets(k.Log)...)
	}
	var digest func(name, value string) string
	if s.KeyErr() == nil {
		digest = s.Digest
	}
	return redact.Of(secs, digest)
}

// PidReport hides secrets in r, the report of a check of process pid as
// verify --pid makes it (verify.CheckForPid), by the records of the state
// dir s. The secrets are those of
// the trusted records whose root or worker is pid, a process of r's chain
// or r's worker (Known.Pids). So a command that launches nothing masks a
// process it did not start by the records of the launches it may belong
// to. A nil r, or one no record concerns, is left as it is.
func PidReport(s *statedir.Store, pid int, r *verify.Report) {
	if r == nil {
		return
	}
	pids := []int{pid}
	for _, c := range r.Chain {
		pids = append(pids, c.Pid)
	}
	if r.Worker != nil {
		pids = append(pids, r.Worker.Pid)
	}
	r.Mask(Of(s, Known{Pids: pids}))
}
