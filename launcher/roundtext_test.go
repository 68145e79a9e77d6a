package launcher

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/childproof/childproof/verify"
)

// TestRoundText pins history's columns of a round: outcome, end and
// uptime for each outcome and each way a worker ends.
func TestRoundText(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := start.Add(90*time.Second + 400*time.Millisecond)
	status := func(n int) *int { return &n }
	for _, c := range []struct {
		name                 string
		r                    Round
		outcome, end, uptime string
	}{
		{"launching", Round{Outcome: RoundLaunching, Problems: []verify.Kind{verify.KindExited}}, "launching", "-", "-"},
		{"verified, running", Round{Outcome: RoundVerified}, "verified", "running", "1m30s so far"},
		{"failed, no problem", Round{Outcome: RoundFailed}, "failed", "-", "-"},
		{"failed", Round{Outcome: RoundFailed, Problems: []verify.Kind{verify.KindEnvMismatch, verify.KindPortNotOwned}}, "failed (env-mismatch,port-not-owned)", "-", "-"},
		{"refused", Round{Outcome: RoundRefused, Problems: []verify.Kind{verify.KindDelta}}, "refused (delta)", "-", "-"},
		{"interrupted", Round{Outcome: RoundInterrupted}, "interrupted", "-", "-"},
		{"exited", Round{Outcome: RoundVerified, End: &RoundEnd{How: EndExited, ExitStatus: status(3), UptimeSeconds: 1.23456}}, "verified", "exit 3", "1.24s"},
		{"exit 0, stopped", Round{Outcome: RoundVerified, End: &RoundEnd{How: EndExited, ExitStatus: status(0), StoppedBy: "SIGTERM (stop)", UptimeSeconds: 75.6}}, "verified", "exit 0 (stopped)", "1m16s"},
		{"signaled", Round{Outcome: RoundFailed, Problems: []verify.Kind{verify.KindExited}, End: &RoundEnd{How: EndSignaled, Signal: "SIGKILL", UptimeSeconds: 0.004}}, "failed (exited)", "killed by SIGKILL", "0s"},
		{"signaled, stopped", Round{Outcome: RoundVerified, End: &RoundEnd{How: EndSignaled, Signal: "SIGTERM", StoppedBy: "SIGTERM (relaunch)", UptimeSeconds: 60}}, "verified", "killed by SIGTERM (stopped)", "1m0s"},
		{"stopped", Round{Outcome: RoundVerified, End: &RoundEnd{How: EndStopped, StoppedBy: "SIGKILL (stop)", UptimeSeconds: 2}}, "verified", "stopped by childproof", "2s"},
		{"gone", Round{Outcome: RoundVerified, End: &RoundEnd{How: EndGone, UptimeSeconds: 3600.4, UptimeAtMost: true}}, "verified", "gone, status unknown", "<=1h0m0s"},
		{"only seen", Round{Outcome: RoundVerified, End: &RoundEnd{Seen: SeenCensus, UptimeSeconds: 0.5}}, "verified", "", "500ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := c.r
			r.Started = start
			if got := r.OutcomeText(); got != c.outcome {
				t.Errorf("OutcomeText = %q, want %q", got, c.outcome)
			}
			if got := r.EndText(); got != c.end {
				t.Errorf("EndText = %q, want %q", got, c.end)
			}
			if got := r.UptimeText(now); got != c.uptime {
				t.Errorf("UptimeText = %q, want %q", got, c.uptime)
			}
		})
	}
}

// TestRoundDeltaText pins history's DELTA column: replays, each kind of
// --set (plain, with its value, secret), an --in-env-file edit (appended,
// with its old text, with its old digest), unsets, and none.
func TestRoundDeltaText(t *testing.T) {
	dir := filepath.Join(string(filepath.Separator), "srv", "job")
	file := filepath.Join(dir, "conf", "job.env")
	other := filepath.Join(string(filepath.Separator), "etc", "job.env")
	v, old := "60", `"30"`
	digest := "hmac-sha256:0123456789abcdef0123456789abcdef"
	plain := TextOptions{}
	inDir := TextOptions{Dir: dir}
	values := TextOptions{Dir: dir, ShowValues: true}
	for _, c := range []struct {
		name string
		r    Round
		o    TextOptions
		want string
	}{
		{"none", Round{}, plain, "-"},
		{"replay, nothing else", Round{ReplayOf: 2}, plain, "(round 2)"},
		{"set", Round{Delta: RoundDelta{Set: []Override{{Name: "T", Value: &v}}}}, plain, "+T"},
		{"set, values", Round{Delta: RoundDelta{Set: []Override{{Name: "T", Value: &v}}}}, values, "+T=60"},
		{"set, values, none kept", Round{Delta: RoundDelta{Set: []Override{{Name: "T"}}}}, values, "+T"},
		{"secret", Round{Delta: RoundDelta{Set: []Override{{Name: "K", Value: &v, Secret: true}}}}, values, "+K=<secret>"},
		{"unset", Round{Delta: RoundDelta{Unset: []string{"A", "B"}}}, plain, "-A -B"},
		{"replay, set and unset", Round{ReplayOf: 3, Delta: RoundDelta{Set: []Override{{Name: "T", Value: &v}, {Name: "K", Secret: true}}, Unset: []string{"A"}}}, plain, "(round 3) +T +K=<secret> -A"},
		{"env file appended", Round{Delta: RoundDelta{Set: []Override{{Name: "T", EnvFile: &EnvFileEdit{File: file, Line: 7, Appended: true}}}}}, inDir,
			"+T (in " + filepath.Join("conf", "job.env") + ":7, appended)"},
		{"env file, as recorded", Round{Delta: RoundDelta{Set: []Override{{Name: "T", EnvFile: &EnvFileEdit{File: file, Line: 7, Appended: true}}}}}, plain,
			"+T (in " + file + ":7, appended)"},
		{"env file outside dir", Round{Delta: RoundDelta{Set: []Override{{Name: "T", EnvFile: &EnvFileEdit{File: other, Line: 1, OldDigest: digest}}}}}, inDir,
			"+T (in " + other + ":1, was hmac-sha256:0123456789abcdef…)"},
		{"env file, old text", Round{Delta: RoundDelta{Set: []Override{{Name: "T", Value: &v, EnvFile: &EnvFileEdit{File: file, Line: 2, Old: &old, OldDigest: digest}}}}}, values,
			"+T=60 (in " + filepath.Join("conf", "job.env") + `:2, was "30")`},
		{"env file, old text hidden", Round{Delta: RoundDelta{Set: []Override{{Name: "T", Value: &v, EnvFile: &EnvFileEdit{File: file, Line: 2, Old: &old, OldDigest: digest}}}}}, inDir,
			"+T (in " + filepath.Join("conf", "job.env") + ":2, was hmac-sha256:0123456789abcdef…)"},
		{"env file, secret", Round{Delta: RoundDelta{Set: []Override{{Name: "K", Secret: true, EnvFile: &EnvFileEdit{File: file, Line: 2}}}}}, values,
			"+K=<secret> (in " + filepath.Join("conf", "job.env") + ":2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.r.DeltaText(c.o); got != c.want {
				t.Errorf("DeltaText = %q, want %q", got, c.want)
			}
		})
	}
}
