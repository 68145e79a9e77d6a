package main

import (
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/schema"
)

// logSecrets returns what logs masks a launch's output with. The log holds
// the output already masked (at the source: the tree's pipe is read and
// masked before the log is written), so this is a second pass for a log
// an older childproof wrote, with what is known without the caller's
// environment (contract §6: logs never needs it): the secrets of the
// recorded spec as it reads here, the record's digests, and the log mask
// written as the last launch of name started (it covers a launch that
// failed and left no record).
func logSecrets(st *launcher.State, name string, rec *launcher.Record) *redact.Set {
	var l *schema.Launch
	if rec != nil && rec.SpecPath != "" {
		if f, _, diags := schema.Load(rec.SpecPath, schema.LoadOptions{LaunchesNothing: true}); !diags.HasErrors() && f != nil {
			l, _ = f.Launch(rec.Name)
		}
	}
	s := maskFor(st, l, rec)
	s.Merge(st.LogMasker(name))
	return s
}
