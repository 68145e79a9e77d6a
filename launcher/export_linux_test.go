package launcher

import "github.com/childproof/childproof/verify"

// HistoryState is historyState, for the external tests of what package
// present renders from a state dir's rounds.
var HistoryState = historyState

// NewTestLaunch is a Launch with report rep, worker pid and round n, for
// the external tests of what package present renders from a Launch.
func NewTestLaunch(rep *verify.Report, pid, n int) *Launch {
	return &Launch{Report: rep, worker: workerRef{Fingerprint: verify.Fingerprint{Pid: pid}}, notes: launchNotes{round: &Round{N: n}}}
}
