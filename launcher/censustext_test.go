package launcher_test

import (
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// TestCensusEntryText: ps's PID, AGE, ROUND and PORTS columns for each
// kind of entry, byte for byte.
func TestCensusEntryText(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	exit := 3
	const euid = 1000
	ports := []launcher.CensusPort{{Number: 8080, Address: "127.0.0.1", Holder: "worker"}, {Number: 9090, Address: "0.0.0.0", Holder: "none"}}
	type cols struct{ Pid, Age, Round, Ports string }
	tests := []struct {
		name string
		e    launcher.CensusEntry
		want cols
	}{
		{"alive", launcher.CensusEntry{Status: launcher.StatusAlive, Worker: verify.Fingerprint{Pid: 12, UID: euid}, Started: now.Add(-90*time.Second - 400*time.Millisecond), Ports: ports, Round: 2},
			cols{"12", "1m30s", "2", "127.0.0.1:8080 worker; 0.0.0.0:9090 none"}},
		{"unknown start, no round, no ports", launcher.CensusEntry{Status: launcher.StatusUnknown},
			cols{"0", "-", "-", ""}},
		{"pending", launcher.CensusEntry{Status: launcher.StatusUnverified, Worker: verify.Fingerprint{Pid: 12, UID: euid}, Started: now.Add(-time.Hour), Ports: ports[:1], Pending: true},
			cols{"12", "1h0m0s", "-", "127.0.0.1:8080 worker (never verified)"}},
		{"untrusted", launcher.CensusEntry{Status: launcher.StatusUntrusted, Worker: verify.Fingerprint{Pid: 12, UID: 0}, Ports: ports[:1]},
			cols{"12?", "-", "-", "127.0.0.1:8080 worker (claimed by the record, unverified)"}},
		{"untrusted, no pid", launcher.CensusEntry{Status: launcher.StatusUntrusted},
			cols{"0", "-", "-", ""}},
		{"another user", launcher.CensusEntry{Status: launcher.StatusAlive, Worker: verify.Fingerprint{Pid: 12, UID: 0}, Ports: ports[:1]},
			cols{"12", "-", "-", "127.0.0.1:8080 worker (as root, uid 0)"}},
		{"workers, note, restarts", launcher.CensusEntry{Status: launcher.StatusGone, Worker: verify.Fingerprint{Pid: 12, UID: euid}, Workers: 4, Note: "3 processes of its tree left",
			Restarts: 1, LastExit: &exit},
			cols{"12", "-", "-", " (4 workers, the first shown) (3 processes of its tree left) (1 restart, last exit status 3)"}},
		{"restarts without an exit", launcher.CensusEntry{Status: launcher.StatusAlive, Worker: verify.Fingerprint{Pid: 12, UID: euid}, Restarts: 2},
			cols{"12", "-", "-", " (2 restarts)"}},
		{"an exit without restarts", launcher.CensusEntry{Status: launcher.StatusGone, LastExit: &exit},
			cols{"0", "-", "-", " (0 restarts, last exit status 3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cols{tt.e.PidText(), tt.e.AgeText(now), tt.e.RoundText(), tt.e.PortsText(euid)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
		})
	}
}
