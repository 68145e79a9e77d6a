package present

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
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
		r                    launcher.Round
		outcome, end, uptime string
	}{
		{"launching", launcher.Round{Outcome: launcher.RoundLaunching, Problems: []verify.Kind{verify.KindExited}}, "launching", "-", "-"},
		{"verified, running", launcher.Round{Outcome: launcher.RoundVerified}, "verified", "running", "1m30s so far"},
		{"failed, no problem", launcher.Round{Outcome: launcher.RoundFailed}, "failed", "-", "-"},
		{"failed", launcher.Round{Outcome: launcher.RoundFailed, Problems: []verify.Kind{verify.KindEnvMismatch, verify.KindPortNotOwned}}, "failed (env-mismatch,port-not-owned)", "-", "-"},
		{"refused", launcher.Round{Outcome: launcher.RoundRefused, Problems: []verify.Kind{verify.KindDelta}}, "refused (delta)", "-", "-"},
		{"interrupted", launcher.Round{Outcome: launcher.RoundInterrupted}, "interrupted", "-", "-"},
		{"exited", launcher.Round{Outcome: launcher.RoundVerified, End: &launcher.RoundEnd{How: launcher.EndExited, ExitStatus: status(3), UptimeSeconds: 1.23456}}, "verified", "exit 3", "1.24s"},
		{"exit 0, stopped", launcher.Round{Outcome: launcher.RoundVerified, End: &launcher.RoundEnd{How: launcher.EndExited, ExitStatus: status(0), StoppedBy: "SIGTERM (stop)", UptimeSeconds: 75.6}}, "verified", "exit 0 (stopped)", "1m16s"},
		{"signaled", launcher.Round{Outcome: launcher.RoundFailed, Problems: []verify.Kind{verify.KindExited}, End: &launcher.RoundEnd{How: launcher.EndSignaled, Signal: "SIGKILL", UptimeSeconds: 0.004}}, "failed (exited)", "killed by SIGKILL", "0s"},
		{"signaled, stopped", launcher.Round{Outcome: launcher.RoundVerified, End: &launcher.RoundEnd{How: launcher.EndSignaled, Signal: "SIGTERM", StoppedBy: "SIGTERM (relaunch)", UptimeSeconds: 60}}, "verified", "killed by SIGTERM (stopped)", "1m0s"},
		{"stopped", launcher.Round{Outcome: launcher.RoundVerified, End: &launcher.RoundEnd{How: launcher.EndStopped, StoppedBy: "SIGKILL (stop)", UptimeSeconds: 2}}, "verified", "stopped by childproof", "2s"},
		{"gone", launcher.Round{Outcome: launcher.RoundVerified, End: &launcher.RoundEnd{How: launcher.EndGone, UptimeSeconds: 3600.4, UptimeAtMost: true}}, "verified", "gone, status unknown", "<=1h0m0s"},
		{"only seen", launcher.Round{Outcome: launcher.RoundVerified, End: &launcher.RoundEnd{Seen: launcher.SeenCensus, UptimeSeconds: 0.5}}, "verified", "", "500ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := c.r
			r.Started = start
			if got := OutcomeText(&r); got != c.outcome {
				t.Errorf("OutcomeText = %q, want %q", got, c.outcome)
			}
			if got := EndText(&r); got != c.end {
				t.Errorf("EndText = %q, want %q", got, c.end)
			}
			if got := UptimeText(&r, now); got != c.uptime {
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
		r    launcher.Round
		o    TextOptions
		want string
	}{
		{"none", launcher.Round{}, plain, "-"},
		{"replay, nothing else", launcher.Round{ReplayOf: 2}, plain, "(round 2)"},
		{"set", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T", Value: &v}}}}, plain, "+T"},
		{"set, values", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T", Value: &v}}}}, values, "+T=60"},
		{"set, values, none kept", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T"}}}}, values, "+T"},
		{"secret", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "K", Value: &v, Secret: true}}}}, values, "+K=<secret>"},
		{"unset", launcher.Round{Delta: launcher.RoundDelta{Unset: []string{"A", "B"}}}, plain, "-A -B"},
		{"replay, set and unset", launcher.Round{ReplayOf: 3, Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T", Value: &v}, {Name: "K", Secret: true}}, Unset: []string{"A"}}}, plain, "(round 3) +T +K=<secret> -A"},
		{"env file appended", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T", EnvFile: &launcher.EnvFileEdit{File: file, Line: 7, Appended: true}}}}}, inDir,
			"+T (in " + filepath.Join("conf", "job.env") + ":7, appended)"},
		{"env file, as recorded", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T", EnvFile: &launcher.EnvFileEdit{File: file, Line: 7, Appended: true}}}}}, plain,
			"+T (in " + file + ":7, appended)"},
		{"env file outside dir", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T", EnvFile: &launcher.EnvFileEdit{File: other, Line: 1, OldDigest: digest}}}}}, inDir,
			"+T (in " + other + ":1, was hmac-sha256:0123456789abcdef…)"},
		{"env file, old text", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T", Value: &v, EnvFile: &launcher.EnvFileEdit{File: file, Line: 2, Old: &old, OldDigest: digest}}}}}, values,
			"+T=60 (in " + filepath.Join("conf", "job.env") + `:2, was "30")`},
		{"env file, old text hidden", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "T", Value: &v, EnvFile: &launcher.EnvFileEdit{File: file, Line: 2, Old: &old, OldDigest: digest}}}}}, inDir,
			"+T (in " + filepath.Join("conf", "job.env") + ":2, was hmac-sha256:0123456789abcdef…)"},
		{"env file, secret", launcher.Round{Delta: launcher.RoundDelta{Set: []launcher.Override{{Name: "K", Secret: true, EnvFile: &launcher.EnvFileEdit{File: file, Line: 2}}}}}, values,
			"+K=<secret> (in " + filepath.Join("conf", "job.env") + ":2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := DeltaText(&c.r, c.o); got != c.want {
				t.Errorf("DeltaText = %q, want %q", got, c.want)
			}
		})
	}
}
