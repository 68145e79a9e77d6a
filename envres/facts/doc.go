// Package facts holds what envres's walk (envres/interp) records for the
// lint rules (envres) to report from, as go/analysis's facts: the places a
// finding names (Site), the changes of protected variables, the env-file
// loads, the wrappers a worker starts under and the rest of Facts. It is
// plain data: nothing here walks or reports.
package facts
