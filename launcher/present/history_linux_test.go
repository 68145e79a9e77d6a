package present

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// TestHistoryWriteText pins history's table byte for byte: the header,
// a row per round with "*" after the current one and its time in local
// time, the signal lines, the closing line of a current round; no "*"
// and no closing line without one; the header alone for no round.
func TestHistoryWriteText(t *testing.T) {
	at := func(h, m, s int) time.Time { return time.Date(2026, 12, 2, h, m, s, 0, time.Local) }
	now := at(10, 6, 30)
	v := "60"
	failed := &launcher.Round{N: 1, Command: launcher.CommandRun, Started: at(10, 0, 0), Outcome: launcher.RoundFailed, Problems: []verify.Kind{verify.KindExited},
		End:     &launcher.RoundEnd{How: launcher.EndSignaled, Signal: "SIGKILL", UptimeSeconds: 1.5},
		Signals: []verify.Signal{{Signal: "SIGKILL", ToPid: 4301, FromPid: 77, FromComm: "killer", FromUID: 1000, AfterMs: 1500}}}
	verified := &launcher.Round{N: 2, Command: launcher.CommandRelaunch, Started: at(10, 5, 0), Outcome: launcher.RoundVerified,
		Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "TIMEOUT", Value: &v, EnvFile: &launcher.EnvFileEdit{File: "/srv/job/job.env", Line: 3, Appended: true}}}, Unset: []string{"DEBUG"}}}
	interrupted := &launcher.Round{N: 1, Command: launcher.CommandUp, Started: at(9, 0, 0), Outcome: launcher.RoundInterrupted}
	long := &launcher.Round{N: 3, Command: launcher.CommandRollback, Started: at(10, 6, 0), Outcome: launcher.RoundFailed, Problems: []verify.Kind{verify.KindEnvMismatch, verify.KindPortNotOwned},
		End: &launcher.RoundEnd{How: launcher.EndSignaled, Signal: "SIGKILL", UptimeSeconds: 2}}
	const header = "ROUND WHEN                COMMAND  OUTCOME          ENDED                      UPTIME     DELTA"
	for _, c := range []struct {
		name string
		h    launcher.History
		o    TextOptions
		want []string
	}{
		{"current, signals", launcher.History{Rounds: []*launcher.Round{failed, verified}, Current: 2}, TextOptions{Dir: "/srv/job"}, []string{
			header,
			"1     2026-12-02 10:00:00 run      failed (exited)  killed by SIGKILL          1.5s       -",
			"      signal: SIGKILL from pid 77 (killer, uid 1000) 1500 ms after start, to pid 4301",
			"2*    2026-12-02 10:05:00 relaunch verified         running                    1m30s so far +TIMEOUT (in job.env:3, appended) -DEBUG",
			"* the recorded launch (the baseline of the next relaunch): round 2"}},
		{"values, paths as recorded", launcher.History{Rounds: []*launcher.Round{verified}, Current: 2}, TextOptions{ShowValues: true}, []string{
			header,
			"2*    2026-12-02 10:05:00 relaunch verified         running                    1m30s so far +TIMEOUT=60 (in /srv/job/job.env:3, appended) -DEBUG",
			"* the recorded launch (the baseline of the next relaunch): round 2"}},
		{"no current", launcher.History{Rounds: []*launcher.Round{interrupted}}, TextOptions{}, []string{
			header,
			"1     2026-12-02 09:00:00 up       interrupted      -                          -          -"}},
		{"long columns cut with …", launcher.History{Rounds: []*launcher.Round{long}}, TextOptions{}, []string{
			header,
			"3     2026-12-02 10:06:00 rollback failed (env-mis… killed by SIGKILL          2s         -"}},
		{"no round", launcher.History{}, TextOptions{}, []string{header}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteHistory(&b, &c.h, c.o, now)
			if diff := cmp.Diff(strings.Join(c.want, "\n")+"\n", b.String()); diff != "" {
				t.Errorf("WriteHistory (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHistoryOutput: history's JSON object is {"current", "name",
// "rounds"} — the same bytes as the map the CLI encoded before — with
// every round redacted (a value only with showValues, a secret one
// never), and the History left as it was.
func TestHistoryOutput(t *testing.T) {
	v, secret := "60", "hunter2"
	r := &launcher.Round{N: 3, Command: launcher.CommandRelaunch, Outcome: launcher.RoundVerified, MAC: "mac", WorkerEnv: map[string]string{"A": "d"},
		Delta:     launcher.RoundDelta{Set: []launcher.Override{{Name: "TIMEOUT", Value: &v}, {Name: "TOKEN", Value: &secret, Secret: true}}},
		Overrides: []launcher.Override{{Name: "TIMEOUT", Value: &v}, {Name: "TOKEN", Value: &secret, Secret: true}}}
	h := &launcher.History{Rounds: []*launcher.Round{r}, Current: 3}
	for _, show := range []bool{false, true} {
		out := NewHistoryOutput(h, "job", show)
		got, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(map[string]any{"name": "job", "current": 3, "rounds": []*launcher.Round{r.Redacted(show)}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("showValues %v: JSON (-want +got):\n%s", show, diff)
		}
		o := out.Rounds[0]
		if o.MAC != "" || o.WorkerEnv != nil || o.Delta.Set[1].Value != nil || (o.Delta.Set[0].Value != nil) != show {
			t.Errorf("showValues %v: round not redacted: %+v", show, o)
		}
	}
	if r.MAC != "mac" || r.Delta.Set[1].Value == nil {
		t.Errorf("Output changed the History's round: %+v", r)
	}
	if got, err := json.Marshal(NewHistoryOutput(&launcher.History{}, "none", false)); err != nil || string(got) != `{"current":0,"name":"none","rounds":[]}` {
		t.Errorf("no round: JSON %s, %v; want rounds []", got, err)
	}
}

// TestRoundsDiffWriteText pins history --diff's text: the summary, then
// the names padded to the longest, with their notes.
func TestRoundsDiffWriteText(t *testing.T) {
	for _, c := range []struct {
		name string
		d    RoundsDiff
		want []string
	}{
		{"identical", RoundsDiff{A: 2, B: 3, Name: "job", Differ: []DiffName{}}, []string{
			"rounds 2 and 3 of job: the workers' environments are identical (every digest equal)"}},
		{"one", RoundsDiff{A: 1, B: 4, Name: "job", Differ: []DiffName{{Name: "TIMEOUT", How: "changed"}}}, []string{
			"rounds 1 and 4 of job: 1 name differs on the worker",
			"  TIMEOUT  changed"}},
		{"padded, notes", RoundsDiff{A: 2, B: 3, Name: "job", Differ: []DiffName{
			{Name: "PATH", How: "changed", Volatile: true},
			{Name: "TIMEOUT", How: "only in round B", Override: "--set in round 3"},
			{Name: "RANDOM", How: "only in round A", Volatile: true, Override: "--set in round 2"}}}, []string{
			"rounds 2 and 3 of job: 3 names differ on the worker",
			"  PATH     changed  volatile (set anew on every launch)",
			"  TIMEOUT  only in round B  --set in round 3",
			"  RANDOM   only in round A  volatile (set anew on every launch)  --set in round 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			c.d.WriteText(&b)
			if diff := cmp.Diff(strings.Join(c.want, "\n")+"\n", b.String()); diff != "" {
				t.Errorf("WriteText (-want +got):\n%s", diff)
			}
		})
	}
}
