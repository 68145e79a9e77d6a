package present

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// outputReport is a small verified report.
func outputReport() *verify.Report {
	return &verify.Report{Name: "job", Verified: true, Ready: true, Attempts: 1,
		Worker: &verify.WorkerInfo{Pid: 4300, Comm: "srv", Exe: "/srv/bin/srv", StartTime: 99}}
}

// failedReport is a report of a worker that exited before it was ready.
func failedReport() *verify.Report {
	r := &verify.Report{Name: "job", Attempts: 1}
	r.Add(verify.KindExited, "the worker exited with status 1 before it was ready")
	r.SetOutcome(outcome.Exited)
	return r
}

// decodeJSON is v's JSON as encoding/json decodes it into a map.
func decodeJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// withKeys is the JSON of rep with the keys of extra added (a nil value
// is a JSON null).
func withKeys(t *testing.T, rep *verify.Report, extra map[string]any) map[string]any {
	m := decodeJSON(t, rep)
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// TestRunOutput pins run's output: the report's JSON object plus
// "round" (left out for round 0), and the text report plus the round line
// (NewRunOutput of a Launch with a round: launcher's TestNewRunOutput).
func TestRunOutput(t *testing.T) {
	for _, c := range []struct {
		name  string
		out   *RunOutput
		extra map[string]any
		text  []string
	}{
		{"round", &RunOutput{Report: outputReport(), Round: 3}, map[string]any{"round": 3.0}, []string{
			"verified job: worker pid 4300 (srv) uid 0 /srv/bin/srv",
			"  ready:   yes (attempt 1)",
			"  round:   3 (childproof history job)"}},
		{"no round", NewRunOutput(&launcher.Launch{Report: outputReport()}), nil, []string{
			"verified job: worker pid 4300 (srv) uid 0 /srv/bin/srv",
			"  ready:   yes (attempt 1)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := c.out
			if diff := cmp.Diff(withKeys(t, out.Report, c.extra), decodeJSON(t, out)); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
			var b bytes.Buffer
			out.WriteText(&b)
			if diff := cmp.Diff(strings.Join(c.text, "\n")+"\n", b.String()); diff != "" {
				t.Errorf("WriteText (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRelaunchOutput pins relaunch's output: the report's JSON object plus
// round, delta (null before the new worker was verified), previous
// {worker, stopped} and env_files, and the text (the report, to the
// report writer; the delta lines and the round line once there is a
// delta).
func TestRelaunchOutput(t *testing.T) {
	prev := &launcher.Record{Name: "job", Worker: verify.Fingerprint{Pid: 4242, StartTime: 7, Exe: "/srv/bin/srv", Comm: "srv"}}
	prevJSON := map[string]any{"pid": 4242.0, "start_time": 7.0, "uid": 0.0, "exe": "/srv/bin/srv", "comm": "srv"}
	delta := &relaunch.Delta{Declared: []string{"T"}, Changed: []relaunch.DeltaName{{Name: "T", How: relaunch.DeltaChanged, Declared: true}}}
	refused := &relaunch.Delta{Declared: []string{"T"}, Changed: []relaunch.DeltaName{{Name: "T", How: relaunch.DeltaChanged, Declared: true}, {Name: "X", How: relaunch.DeltaRemoved}},
		Unexpected: []relaunch.DeltaName{{Name: "X", How: relaunch.DeltaRemoved}}}
	edit := relaunch.EnvFileChange{Name: "T", File: "/srv/job/job.env", Line: 3, How: relaunch.EnvFileEdited, OldDigest: "hmac-sha256:00"}
	stopped := &launcher.StopResult{Name: "job", Message: "job: stopped the worker (pid 4242) and its process group with SIGTERM"}
	failed := []string{
		"NOT verified job: no worker",
		"  ready:   no (attempt 1)",
		"  problem: exited: the worker exited with status 1 before it was ready"}
	verified := []string{
		"verified job: worker pid 4300 (srv) uid 0 /srv/bin/srv",
		"  ready:   yes (attempt 1)"}
	for _, c := range []struct {
		name   string
		res    *relaunch.Result
		rep    *verify.Report
		extra  map[string]any
		report []string // the lines to the report writer
		rest   []string // the lines to w
	}{
		{"no result", nil, failedReport(), map[string]any{"delta": nil}, failed, nil},
		{"failed before the delta", &relaunch.Result{Previous: prev, Stopped: stopped, EnvFiles: []relaunch.EnvFileChange{edit}, EnvFilesRestored: true}, failedReport(),
			map[string]any{"delta": nil,
				"previous":  map[string]any{"worker": prevJSON, "stopped": stopped.Message},
				"env_files": []any{map[string]any{"name": "T", "file": "/srv/job/job.env", "line": 3.0, "how": "edited", "old_digest": "hmac-sha256:00"}}},
			failed, nil},
		{"verified", &relaunch.Result{Previous: prev, Stopped: stopped, Delta: delta, Round: 4}, outputReport(),
			map[string]any{"round": 4.0,
				"delta":    decodeJSON(t, delta),
				"previous": map[string]any{"worker": prevJSON, "stopped": stopped.Message}},
			verified, []string{
				"  delta:   T changed, declared with --set",
				"  delta:   exactly T changed on the worker (against the recorded worker, pid 4242)",
				"  round:   4 (childproof history job)"}},
		{"previous already stopped", &relaunch.Result{Previous: prev, Delta: &relaunch.Delta{}}, outputReport(),
			map[string]any{"delta": decodeJSON(t, &relaunch.Delta{}), "previous": map[string]any{"worker": prevJSON}},
			verified, []string{
				"  delta:   none: the worker's environment is identical (against the recorded worker, pid 4242)"}},
		{"refused", &relaunch.Result{Previous: prev, Stopped: stopped, Delta: refused, Round: 5}, failedReport(),
			map[string]any{"round": 5.0,
				"delta":    decodeJSON(t, refused),
				"previous": map[string]any{"worker": prevJSON, "stopped": stopped.Message}},
			failed, []string{
				"  delta:   T changed, declared with --set",
				"  delta:   X removed, NOT declared",
				"  round:   5 (childproof history job)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := NewRelaunchOutput(c.res, c.rep)
			if diff := cmp.Diff(withKeys(t, c.rep, c.extra), decodeJSON(t, out)); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
			lines := func(l []string) string {
				if l == nil {
					return ""
				}
				return strings.Join(l, "\n") + "\n"
			}
			var w, report bytes.Buffer
			out.WriteText(&w, &report)
			if diff := cmp.Diff(lines(c.report), report.String()); diff != "" {
				t.Errorf("WriteText, the report (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(lines(c.rest), w.String()); diff != "" {
				t.Errorf("WriteText, the rest (-want +got):\n%s", diff)
			}
			w.Reset()
			out.WriteText(&w, nil)
			if diff := cmp.Diff(lines(c.report)+lines(c.rest), w.String()); diff != "" {
				t.Errorf("WriteText to one writer (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRelaunchNotes pins relaunch's stderr lines: the previous launch's
// stop, each env file change (a kept edit is a warning), the undo of a
// failed relaunch's edits.
func TestRelaunchNotes(t *testing.T) {
	o := TextOptions{Dir: "/srv/job"}
	stopped := &launcher.StopResult{Message: "job: the worker (pid 4242) is already gone"}
	for _, c := range []struct {
		name string
		res  *relaunch.Result
		want []RelaunchNote
	}{
		{"nil", nil, nil},
		{"nothing", &relaunch.Result{}, nil},
		{"stopped", &relaunch.Result{Stopped: stopped}, []RelaunchNote{{Text: "job: the worker (pid 4242) is already gone"}}},
		{"env files, restored", &relaunch.Result{Stopped: stopped, EnvFilesRestored: true, EnvFiles: []relaunch.EnvFileChange{
			{Name: "T", File: "/srv/job/job.env", Line: 9, How: relaunch.EnvFileAppended},
			{Name: "K", File: "/srv/job/job.env", Line: 2, How: relaunch.EnvFileKept},
			{Name: "U", File: "/srv/job/job.env", Line: 4, How: "moved"}}}, []RelaunchNote{
			{Text: "job: the worker (pid 4242) is already gone"},
			{Text: "T: appended to job.env:9 (the file did not assign it)"},
			{Warning: true, Text: "K: job.env:2 keeps the edited value: the old value of a secret was not kept; edit the file by hand"},
			{Text: "the env file changes were undone (the relaunch failed)"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, RelaunchNotes(c.res, "job", o)); diff != "" {
				t.Errorf("RelaunchNotes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpecChangedText pins relaunch's warning about a spec edited since
// the recorded launch.
func TestSpecChangedText(t *testing.T) {
	l := &schema.Launch{Name: "job", SpecPath: "/srv/job/childproof.hcl"}
	for _, c := range []struct {
		name string
		b    relaunch.Base
		o    TextOptions
		want string
	}{
		{"unchanged", relaunch.Base{Detach: true}, TextOptions{}, ""},
		{"changed", relaunch.Base{SpecChanged: true}, TextOptions{Dir: "/srv/job"},
			"childproof.hcl changed since the recorded launch of job: any change it makes on the worker is an unexpected delta"},
		{"changed, outside Dir", relaunch.Base{SpecChanged: true}, TextOptions{Dir: "/home/u"},
			"/srv/job/childproof.hcl changed since the recorded launch of job: any change it makes on the worker is an unexpected delta"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := SpecChangedText(c.b, l, c.o); got != c.want {
				t.Errorf("SpecChangedText = %q, want %q", got, c.want)
			}
		})
	}
}
