package verify

import "testing"

// TestMatchesMaskedExe: a record keeps an exe built from a secret masked
// (<D>/server); without pidfs inodes it still matches the live path.
func TestMatchesMaskedExe(t *testing.T) {
	rec := Fingerprint{Pid: 7, StartTime: 9, UID: 0, Exe: "<D>/server"}
	if !rec.Matches(Fingerprint{Pid: 7, StartTime: 9, UID: 0, Exe: "/srv/m/server"}) {
		t.Error("masked exe does not match its live path")
	}
	if rec.Matches(Fingerprint{Pid: 7, StartTime: 9, UID: 0, Exe: "/srv/m/other"}) {
		t.Error("masked exe matches another program")
	}
	if !SameExe("/srv/m/server (deleted)", "<D>/server") {
		t.Error("a deleted binary under a masked path")
	}
}
