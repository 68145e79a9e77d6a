package launcher

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/childproof/childproof/outcome"
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
	port := freePort(t)
	src := filepath.Join("..", "examples", "03-dispatch-resource-env")
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
	build := exec.Command("go", "build", "-o", filepath.Join(root, "bin", "mock-llm"), "../examples/mock-llm")
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
	return fp.Check(procDefault) != verify.Alive
}

func TestRelaunchExampleDispatchJob(t *testing.T) {
	l, ex, port := exampleJob(t, "resource-env-fixed")
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := RelaunchOptions{Options: Options{State: st, Tracking: Tracking{NoCgroup: os.Getenv("CHILDPROOF_NO_CGROUP") != ""}}}
	var last *Launch
	t.Cleanup(func() {
		if last != nil {
			last.Stop(context.Background())
		}
		if rec, err := st.Load(l.Name); err == nil {
			StopRecord(context.Background(), procDefault, st, rec, 0)
		}
	})
	supervise := func(la *Launch) {
		last = la
		go la.Wait() // the foreground supervisor: it releases the lock when the worker goes
	}

	// Round 1: the job as the spec says.
	first, err := Start(ctx, l, opts.Options)
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
	if first.Worker().Check(procDefault) == verify.Alive {
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
		t.Errorf("the relaunch's round: RelaunchResult.Round %d, Launch.Round %d; want 2", res.Round, second.Round())
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
	var e *Error
	if la != nil || !errors.As(err, &e) || e.Outcome != outcome.Delta || (e.Report == nil || !e.Report.Has(verify.KindDelta)) {
		t.Fatalf("relaunch with .env edited: got %v, %v; want a delta error (exit 3)", la, err)
	}
	var deltas []string
	for _, p := range e.Report.Problems {
		if p.Kind == verify.KindDelta {
			deltas = append(deltas, p.Message)
		}
	}
	if len(deltas) != 1 || !strings.HasPrefix(deltas[0], "MODEL_NAME changed") || !strings.Contains(deltas[0], "env_file") {
		t.Errorf("delta problems = %q, want one naming MODEL_NAME from the env_file", deltas)
	}
	if strings.Contains(e.Error(), "mock-13b") || strings.Contains(e.Error(), "warn") {
		t.Errorf("the error shows a value: %v", e)
	}
	if e.Report.Worker == nil || !goneOrReused(e.Report.Worker) {
		t.Errorf("the refused worker still runs: %+v", e.Report.Worker)
	}
	if second.Worker().Check(procDefault) == verify.Alive {
		t.Errorf("the previous worker still runs")
	}
	if hs, err := verify.Holders(procDefault, port, nil); err != nil || len(hs) != 0 {
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
	if fifth.Worker().Check(procDefault) == verify.Alive {
		t.Errorf("the worker survived Stop")
	}
}

func TestRelaunchWithoutRecord(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &schema.Launch{Name: "never", Command: []string{"true"}}
	_, _, err = Relaunch(context.Background(), l, RelaunchOptions{Options: Options{State: st}})
	var e *Error
	if !errors.As(err, &e) || e.Outcome != outcome.NotRecorded || !strings.Contains(e.Msg, "nothing to relaunch") {
		t.Fatalf("got %v, want no launch recorded", err)
	}
}

func TestRelaunchBadSetTouchesNothing(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := &Record{Name: "job", Worker: verify.Fingerprint{Pid: os.Getpid()}, WorkerEnv: map[string]string{"A": "x"}}
	if err := st.Save(rec); err != nil {
		t.Fatal(err)
	}
	l := &schema.Launch{Name: "job", Command: []string{"true"}}
	_, _, err = Relaunch(context.Background(), l, RelaunchOptions{Options: Options{State: st, EnvInput: EnvInput{Set: map[string]string{"A=B": "1"}}}})
	var e *Error
	if !errors.As(err, &e) || e.Outcome != outcome.Usage {
		t.Fatalf("got %v, want a usage error", err)
	}
	got, _ := st.Load("job")
	if got.Stopped != nil {
		t.Errorf("the recorded launch was marked stopped")
	}
}
