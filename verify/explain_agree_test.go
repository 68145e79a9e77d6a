package verify

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/childproof/childproof/proc"
)

// TestExplainAgreesWithVerify: for a worker that rewrote its environment
// block, explain's worker row judges each name by the same evidence as
// verify (the exec-time capture while it holds), so a name verify passes is
// never "unreadable … NOT the intended value" in explain, and a name verify
// cannot judge is never answered "the intended value on every process".
func TestExplainAgreesWithVerify(t *testing.T) {
	want := map[string]string{"APP_TOKEN": "d:APP_TOKEN=t", "MODE": "d:MODE=fast"}
	for _, tc := range []struct {
		name    string
		environ string
		ev      *ExecEnv
	}{
		{"rewritten, captured", strings.Repeat("\x00", 40), &ExecEnv{Digests: map[string]string{"APP_TOKEN": "d:APP_TOKEN=t", "MODE": "d:MODE=fast"}, Exe: "/usr/bin/srv"}},
		{"rewritten, captured, one differs", strings.Repeat("\x00", 40), &ExecEnv{Digests: map[string]string{"APP_TOKEN": "d:APP_TOKEN=t", "MODE": "d:MODE=slow"}, Exe: "/usr/bin/srv"}},
		{"rewritten, no evidence", strings.Repeat("\x00", 40), nil},
		{"rewritten, stale evidence", strings.Repeat("\x00", 40), &ExecEnv{Vars: []proc.Var{{Name: "APP_TOKEN", Value: "t"}}, Exe: "/usr/bin/other"}},
		{"intact live block wins over a capture", "APP_TOKEN=t\x00MODE=slow\x00", &ExecEnv{Digests: map[string]string{"APP_TOKEN": "d:APP_TOKEN=t", "MODE": "d:MODE=fast"}, Exe: "/usr/bin/srv"}},
	} {
		t.Run(tc.name, func(t *testing.T) { agree(t, tc.environ, tc.ev, want) })
	}
}

// TestExplainAgreesGenerated: the same agreement over generated workers —
// intact, NUL-only and titled environ blocks, with and without exec-time
// evidence (of this program or a stale one), values equal or not to the
// intended ones.
func TestExplainAgreesGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	vals := []string{"t", "fast", "slow", ""}
	for i := range 80 {
		want := map[string]string{"APP_TOKEN": "d:APP_TOKEN=t", "MODE": "d:MODE=fast"}
		var environ string
		switch r.IntN(3) {
		case 0:
			for _, n := range []string{"APP_TOKEN", "MODE", "OTHER"} {
				if r.IntN(4) > 0 {
					environ += n + "=" + vals[r.IntN(len(vals))] + "\x00"
				}
			}
		case 1:
			environ = strings.Repeat("\x00", 40)
		default:
			environ = "srv: worker [app]\x00MODE=fast\x00"
		}
		var ev *ExecEnv
		if r.IntN(3) > 0 {
			ev = &ExecEnv{Digests: map[string]string{}, Exe: "/usr/bin/srv"}
			if r.IntN(4) == 0 {
				ev.Exe = "/usr/bin/other"
			}
			for _, n := range []string{"APP_TOKEN", "MODE"} {
				if r.IntN(4) > 0 {
					ev.Digests[n] = "d:" + n + "=" + vals[r.IntN(len(vals))]
				}
			}
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { agree(t, environ, ev, want) })
	}
}

// agree checks one worker: verify's env checks and explain's worker row
// judge each name the same way.
func agree(t *testing.T, environ string, ev *ExecEnv, want map[string]string) {
	t.Helper()
	p := fakeWorker(t, environ, "redis-server *:6379\x00", 20)
	v := &Verifier{Proc: p, State: digester{}}
	r := NewReport("t")
	v.checkEnv(r, Check{Expect: Expect{Digests: want, Require: []string{"APP_TOKEN"}}, ExecEnv: ev}, 42)
	rows := v.Explain(42, 42, []string{"APP_TOKEN", "MODE"}, ev)
	for i, ec := range r.Env {
		var row ExplainVar
		for _, rw := range rows {
			if rw.Role == "worker" {
				row = rw.Vars[i]
			}
		}
		unreadable := false
		for _, pr := range r.Problems {
			if pr.Kind == KindEnvUnreadable && strings.HasPrefix(pr.Message, ec.Name+" ") {
				unreadable = true
			}
		}
		if unreadable != (row.State == "unreadable") || unreadable != WorkerUnreadable(rows, i) {
			t.Errorf("%s: verify unreadable=%t, explain state %q", ec.Name, unreadable, row.State)
		}
		if !unreadable && row.Digest != ec.Digest {
			t.Errorf("%s: explain digest %q, verify digest %q", ec.Name, row.Digest, ec.Digest)
		}
		_, differs := FirstDiffer(rows, i, want[ec.Name])
		verifyDiffers := ec.Matches != nil && !*ec.Matches && !unreadable
		if differs != verifyDiffers {
			t.Errorf("%s: explain says differs=%t, verify matches=%v", ec.Name, differs, ec.Matches)
		}
	}

}
