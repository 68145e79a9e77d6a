package relaunch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

func TestCompareEnv(t *testing.T) {
	before := map[string]string{"A": "d1", "B": "d2", "C": "d3", "GONE": "d4"}
	tests := []struct {
		name     string
		after    map[string]string
		declared []string
		want     *Delta
	}{
		{"exactly the declared name", map[string]string{"A": "x", "B": "d2", "C": "d3", "GONE": "d4"}, []string{"A"},
			&Delta{Declared: []string{"A"}, Changed: []DeltaName{{Name: "A", How: "changed", Declared: true}}, Unexpected: []DeltaName{}, Unchanged: []string{}, Carried: []string{}, Dropped: []string{}, Forward: []string{}, Volatile: []string{}}},
		{"a declared name added", map[string]string{"A": "d1", "B": "d2", "C": "d3", "GONE": "d4", "NEW": "n"}, []string{"NEW"},
			&Delta{Declared: []string{"NEW"}, Changed: []DeltaName{{Name: "NEW", How: "added", Declared: true}}, Unexpected: []DeltaName{}, Unchanged: []string{}, Carried: []string{}, Dropped: []string{}, Forward: []string{}, Volatile: []string{}}},
		{"an env file edit and a dropped name", map[string]string{"A": "x", "B": "y", "C": "d3"}, []string{"A"},
			&Delta{Declared: []string{"A"},
				Changed:    []DeltaName{{Name: "A", How: "changed", Declared: true}, {Name: "B", How: "changed"}, {Name: "GONE", How: "removed"}},
				Unexpected: []DeltaName{{Name: "B", How: "changed"}, {Name: "GONE", How: "removed"}}, Unchanged: []string{}, Carried: []string{}, Dropped: []string{}, Forward: []string{}, Volatile: []string{}}},
		{"a declared name that did not change", map[string]string{"A": "d1", "B": "d2", "C": "d3", "GONE": "d4"}, []string{"A", "A"},
			&Delta{Declared: []string{"A"}, Changed: []DeltaName{}, Unexpected: []DeltaName{}, Unchanged: []string{"A"}, Carried: []string{}, Dropped: []string{}, Forward: []string{}, Volatile: []string{}}},
		{"no declared name, nothing changed", before, nil,
			&Delta{Declared: []string{}, Changed: []DeltaName{}, Unexpected: []DeltaName{}, Unchanged: []string{}, Carried: []string{}, Dropped: []string{}, Forward: []string{}, Volatile: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompareEnv(before, tt.after, tt.declared)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CompareEnv (-want +got):\n%s", diff)
			}
			if got.OK() != (len(tt.want.Unexpected) == 0 && len(tt.want.Unchanged) == 0) {
				t.Errorf("OK() = %v", got.OK())
			}
		})
	}
}

// exampleJob copies examples/03-dispatch-resource-env to a temp dir with
// its port replaced by a free one, builds examples/mock-llm where its
// dispatch script execs it (../../bin/mock-llm), and loads the spec's
// launch name.
func exampleJob(t *testing.T, name string) (*schema.Launch, string, int) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command to build examples/mock-llm")
	}
	root := t.TempDir()
	ex := filepath.Join(root, "examples", "03-dispatch-resource-env")
	port := launchertest.FreePort(t)
	src := filepath.Join("..", "..", "examples", "03-dispatch-resource-env")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(ex, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		data = []byte(strings.ReplaceAll(string(data), "18083", strconv.Itoa(port)))
		return os.WriteFile(dst, data, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(root, "bin", "mock-llm"), "../../examples/mock-llm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build mock-llm: %v\n%s", err, out)
	}
	f, _, diags := schema.Load(filepath.Join(ex, "childproof.hcl"), schema.LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	l, err := f.Launch(name)
	if err != nil {
		t.Fatal(err)
	}
	return l, ex, port
}

// goneOrReused reports whether the fingerprinted process no longer runs.
func goneOrReused(w *verify.WorkerInfo) bool {
	fp := verify.Fingerprint{Pid: w.Pid, StartTime: w.StartTime, UID: w.UID, Exe: w.Exe, Comm: w.Comm}
	return fp.Check(proc.Default) != verify.Alive
}

func TestRelaunchExampleDispatchJob(t *testing.T) {
	l, ex, port := exampleJob(t, "resource-env-fixed")
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := Options{Options: launcher.Options{State: st, Tracking: launcher.Tracking{NoCgroup: os.Getenv("CHILDPROOF_NO_CGROUP") != ""}}}
	var last *launcher.Launch
	t.Cleanup(func() {
		if last != nil {
			last.Stop(context.Background())
		}
		if rec, err := st.Load(l.Name); err == nil {
			launcher.StopRecord(context.Background(), proc.Default, st, rec, 0)
		}
	})
	supervise := func(la *launcher.Launch) {
		last = la
		go la.Wait() // the foreground supervisor: it releases the lock when the worker goes
	}

	// Round 1: the job as the spec says.
	first, err := launcher.Start(ctx, l, opts.Options)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	supervise(first)

	// Round 2: one mitigation, and only that one: accepted.
	opts.Set = map[string]string{"LOG_LEVEL": "debug"}
	second, res, err := Relaunch(ctx, l, opts)
	if err != nil {
		t.Fatalf("relaunch with only the declared change: %v", err)
	}
	supervise(second)
	if res.Stopped == nil || !res.Stopped.Exited {
		t.Errorf("the previous worker was not stopped: %+v", res.Stopped)
	}
	if first.Worker().Check(proc.Default) == verify.Alive {
		t.Errorf("the previous worker (pid %d) still runs", first.Pid())
	}
	want := []DeltaName{{Name: "LOG_LEVEL", How: "changed", Declared: true, Source: "set"}}
	if diff := cmp.Diff(want, res.Delta.Changed); diff != "" {
		t.Errorf("delta (-want +got):\n%s", diff)
	}
	if !second.Report.Verified {
		t.Errorf("the relaunch is not verified: %+v", second.Report.Problems)
	}
	if res.Round != 2 || second.Round() != 2 {
		t.Errorf("the relaunch's round: Result.Round %d, Launch.Round %d; want 2", res.Round, second.Round())
	}
	if res.Rollback.Tried {
		t.Errorf("a relaunch that worked tried a rollback: %+v", res.Rollback)
	}

	// Round 3: .env was edited meanwhile: refused, the new tree stopped.
	envFile := filepath.Join(ex, ".env")
	orig, _ := os.ReadFile(envFile)
	if err := os.WriteFile(envFile, []byte(strings.Replace(string(orig), "MODEL_NAME=mock-7b", "MODEL_NAME=mock-13b", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Set = map[string]string{"LOG_LEVEL": "warn"}
	la, _, err := Relaunch(ctx, l, opts)
	var e *launcher.Error
	if la != nil || !errors.As(err, &e) || e.Outcome != outcome.Delta || (e.Report == nil || !e.Report.Has(verify.KindDelta)) {
		t.Fatalf("relaunch with .env edited: got %v, %v; want a delta error (exit 3)", la, err)
	}
	var deltas []string
	var fromFile bool
	for _, p := range e.Report.Problems {
		if p.Kind == verify.KindDelta {
			deltas = append(deltas, p.Message)
			n, ok := p.Note.(*DeltaNote)
			fromFile = ok && n.Source == SourceEnvFile && n.EnvFile != ""
		}
	}
	if len(deltas) != 1 || !strings.HasPrefix(deltas[0], "MODEL_NAME changed") || !strings.Contains(deltas[0], "EnvFile") || !fromFile {
		t.Errorf("delta problems = %q, want one naming MODEL_NAME from the env file (a DeltaNote of SourceEnvFile)", deltas)
	}
	if strings.Contains(e.Error(), "mock-13b") || strings.Contains(e.Error(), "warn") {
		t.Errorf("the error shows a value: %v", e)
	}
	if e.Report.Worker == nil || !goneOrReused(e.Report.Worker) {
		t.Errorf("the refused worker still runs: %+v", e.Report.Worker)
	}
	if second.Worker().Check(proc.Default) == verify.Alive {
		t.Errorf("the previous worker still runs")
	}
	if hs, err := verify.Holders(proc.Default, port, nil); err != nil || len(hs) != 0 {
		t.Errorf("port %d still has a listener after the refusal: %+v %v", port, hs, err)
	}
	rec, err := st.Load(l.Name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(second.Record.WorkerEnv, rec.WorkerEnv); diff != "" {
		t.Errorf("the baseline record is not the last accepted launch's (-want +got):\n%s", diff)
	}

	// Round 4: .env restored, but a declared change is no change: refused.
	// (LOG_LEVEL repeats round 2's --set: carried, not a failure;
	// MODEL_NAME already had that value from .env: a no-op mitigation.)
	os.WriteFile(envFile, orig, 0o644)
	opts.Set = map[string]string{"LOG_LEVEL": "debug", "MODEL_NAME": "mock-7b"}
	_, res, err = Relaunch(ctx, l, opts)
	if !errors.As(err, &e) || e.Outcome != outcome.Delta || res.Delta == nil {
		t.Fatalf("relaunch with an unchanged --set: %v", err)
	}
	if diff := cmp.Diff(&Delta{Declared: []string{"LOG_LEVEL", "MODEL_NAME"}, Changed: []DeltaName{}, Unexpected: []DeltaName{},
		Unchanged: []string{"MODEL_NAME"}, Carried: []string{"LOG_LEVEL"}, Dropped: []string{}, Forward: []string{}, Volatile: []string{}}, res.Delta); diff != "" {
		t.Errorf("delta (-want +got):\n%s", diff)
	}
	if res.Stopped != nil {
		t.Errorf("the baseline record was stopped already: nothing to stop, got %+v", res.Stopped)
	}

	// Round 5: a real change again: accepted against the same baseline.
	opts.Set = map[string]string{"LOG_LEVEL": "info"}
	fifth, _, err := Relaunch(ctx, l, opts)
	if err != nil {
		t.Fatalf("relaunch: %v", err)
	}
	supervise(fifth)
	if _, err := fifth.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if fifth.Worker().Check(proc.Default) == verify.Alive {
		t.Errorf("the worker survived Stop")
	}
}

func TestRelaunchWithoutRecord(t *testing.T) {
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &schema.Launch{Name: "never", Command: []string{"true"}}
	_, _, err = Relaunch(context.Background(), l, Options{Options: launcher.Options{State: st}})
	var e *launcher.Error
	if !errors.As(err, &e) || e.Outcome != outcome.NotRecorded || !strings.Contains(e.Msg, "nothing to relaunch") {
		t.Fatalf("got %v, want no launch recorded", err)
	}
}

func TestRelaunchBadSetTouchesNothing(t *testing.T) {
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := &launcher.Record{Name: "job", Worker: verify.Fingerprint{Pid: os.Getpid()}, WorkerEnv: map[string]string{"A": "x"}}
	if err := st.Save(rec); err != nil {
		t.Fatal(err)
	}
	l := &schema.Launch{Name: "job", Command: []string{"true"}}
	_, _, err = Relaunch(context.Background(), l, Options{Options: launcher.Options{State: st, EnvInput: launcher.EnvInput{Set: map[string]string{"A=B": "1"}}}})
	var e *launcher.Error
	if !errors.As(err, &e) || e.Outcome != outcome.Usage {
		t.Fatalf("got %v, want a usage error", err)
	}
	got, _ := st.Load("job")
	if got.Stopped != nil {
		t.Errorf("the recorded launch was marked stopped")
	}
}

// TestRelaunchAfterInterrupted: a relaunch SIGKILLed mid-launch leaves its
// journal record (pending, no worker environment) over the verified one;
// the next relaunch stops what that record names and measures its delta
// against the last verified round's worker, instead of failing until a
// stop and a run.
func TestRelaunchAfterInterrupted(t *testing.T) {
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &schema.Launch{Name: "interrupted", Command: []string{"sleep", "600"},
		Worker: schema.Worker{Comm: "sleep"}, Ready: schema.Ready{Timeout: 5 * time.Second}}
	first, err := launcher.Start(context.Background(), l, launcher.Options{State: st, Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	// What a relaunch killed between its journal and its verified record
	// leaves: the journal of a launch whose tree is the first one's.
	rec, err := st.Load(l.Name)
	if err != nil {
		t.Fatal(err)
	}
	rec.Pending, rec.WorkerEnv, rec.ExecEnv, rec.Env, rec.Round = true, nil, nil, map[string]string{}, rec.Round+1
	if err := st.Save(rec); err != nil {
		t.Fatal(err)
	}
	la, res, err := Relaunch(context.Background(), l, Options{Options: launcher.Options{State: st, Detach: true, EnvInput: launcher.EnvInput{Set: map[string]string{"X": "1"}}}})
	if err != nil {
		t.Fatalf("relaunch after an interrupted one: %v", err)
	}
	defer launcher.StopLaunch(context.Background(), proc.Default, st, l.Name, time.Second, time.Second, nil)
	if first.Worker().Check(proc.Default) == verify.Alive {
		t.Error("the interrupted launch's tree still runs")
	}
	if res.Delta == nil || !res.Delta.OK() {
		t.Fatalf("delta: %+v", res.Delta)
	}
	if la.Worker().Check(proc.Default) != verify.Alive {
		t.Fatal("the new worker does not run")
	}
}

// TestRelaunchShimWorker: a relaunch of a worker behind a
// pyenv/asdf-style shim (a script named like the program that execs it in
// the same pid, here through env: two execs) stops the previous worker,
// which it recognises by pid, start time and pidfs inode, not by the
// shim's exe.
func TestRelaunchShimWorker(t *testing.T) {
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sleep, err := exec.LookPath("sleep")
	if err == nil {
		sleep, err = filepath.EvalSymlinks(sleep)
	}
	if err != nil {
		t.Skip("needs sleep")
	}
	shim := filepath.Join(t.TempDir(), "sleep")
	os.WriteFile(shim, []byte("#!/bin/bash\nexec /usr/bin/env "+sleep+" \"$@\"\n"), 0o755)
	// The shim's bash has sleep's comm too while it runs; with no port to
	// wait for, the worker is selected by its exe.
	l := &schema.Launch{Name: "shim", Command: []string{shim, "600"},
		Worker: schema.Worker{Exe: sleep}, Ready: schema.Ready{Timeout: 5 * time.Second}}
	la, err := launcher.Start(context.Background(), l, launcher.Options{State: st, Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := la.Record
	t.Cleanup(func() { launcher.StopRecord(context.Background(), proc.Default, st, rec, 0) })
	if rec.Worker.Exe == "/usr/bin/bash" || rec.Worker.Exe == "/usr/bin/env" || rec.Worker.Exe == "" {
		t.Errorf("recorded exe %q: the shim's, not sleep's", rec.Worker.Exe)
	}
	la2, _, err := Relaunch(context.Background(), l, Options{Options: launcher.Options{State: st, Detach: true, EnvInput: launcher.EnvInput{Set: map[string]string{"LOG_LEVEL": "debug"}}}})
	if err != nil {
		t.Fatalf("relaunch: %v", err)
	}
	if rec.Worker.Check(proc.Default) == verify.Alive {
		t.Error("relaunch left the previous shim worker running")
	}
	rec = la2.Record
	res, err := launcher.StopRecord(context.Background(), proc.Default, st, rec, 0)
	if err != nil || !res.Signalled || !res.Exited {
		t.Fatalf("stop: %+v %v", res, err)
	}
}

// TestRelaunchChecksLaunch: Relaunch checks the launch by the spec
// loader's rules before it stops anything: a command[0] that is not
// executable is a *schema.InvalidError naming command[0].
func TestRelaunchChecksLaunch(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "notexec")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Relaunch(context.Background(), &schema.Launch{Name: "x", Command: []string{notExec}}, Options{Options: launcher.Options{State: st}})
	var ie *schema.InvalidError
	if !errors.As(err, &ie) || ie.Problems[0].Field != "command[0]" {
		t.Fatalf("Relaunch: err = %v, want *schema.InvalidError naming command[0]", err)
	}
}
